//! The layoutc language server: the only crate that knows LSP. It keeps
//! the open documents in one [`layout_db::Database`], applies edits in
//! order, answers each request on a snapshot of the database in a blocking
//! task (salsa cancels a snapshot's queries when an edit arrives; that is
//! an ordinary outcome, answered with `ContentModified`), and converts
//! layout-ide's plain data to LSP types. A panic inside one request is
//! caught, logged and answered with an error; the server goes on.

mod convert;
mod documents;
mod query;
mod server;

pub use server::Backend;

/// Serves LSP over stdin/stdout until the client exits.
pub fn run_stdio() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let (service, socket) = tower_lsp_server::LspService::build(Backend::new)
            .custom_method("layoutc/panicForTest", Backend::panic_for_test)
            .finish();
        tower_lsp_server::Server::new(tokio::io::stdin(), tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
}
