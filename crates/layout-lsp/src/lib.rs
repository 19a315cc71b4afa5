//! The layoutc language server: the only crate that knows LSP. It keeps
//! the open documents in one [`layout_ide::AnalysisHost`], applies edits in
//! order, answers each request on an [`layout_ide::Analysis`] snapshot in a blocking
//! task (salsa cancels a snapshot's queries when an edit arrives; that is
//! an ordinary outcome, answered with `ContentModified`), and converts
//! layout-ide's plain data to LSP types. A panic inside one request is
//! caught, logged and answered with an error; the server goes on.

mod convert;
mod documents;
mod parent;
mod query;
mod server;
mod transport;
mod workspace;

pub use server::Backend;

/// Serves LSP over stdin/stdout until the client exits or the input ends.
/// Returns the process's exit status: 0 after `shutdown`, 1 otherwise (as
/// the protocol asks of an `exit` without one).
pub fn run_stdio() -> u8 {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(layout_ide::STACK_BYTES)
        .build()
        .expect("a tokio runtime");
    let shut_down = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = shut_down.clone();
    runtime.block_on(async move {
        let (service, socket) =
            tower_lsp_server::LspService::build(move |client| Backend::new(client, flag))
                .custom_method("layoutc/panicForTest", Backend::panic_for_test)
                .custom_method("layoutc/executionsForTest", Backend::executions_for_test)
                .finish();
        transport::serve(tokio::io::stdin(), tokio::io::stdout(), service, socket).await;
    });
    // Tasks still reading stdin must not keep the process alive.
    runtime.shutdown_background();
    if shut_down.load(std::sync::atomic::Ordering::SeqCst) {
        0
    } else {
        1
    }
}
