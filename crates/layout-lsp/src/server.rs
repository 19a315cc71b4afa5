//! The LSP handlers: each turns its parameters into a byte offset, asks
//! layout-ide on a snapshot ([`query::run`]) and converts the answer.

use std::sync::{Arc, Mutex};

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use layout_ide::Database;

use crate::convert;
use crate::documents::Documents;
use crate::query::{self, Snapshot};

/// `solverTimeoutMs` of the client's options or settings (also under a
/// `layoutc` section, as VS Code sends its settings); a positive number.
fn solver_timeout(options: &serde_json::Value) -> Option<u64> {
    let section = options.get("layoutc").unwrap_or(options);
    let ms = section
        .get("solverTimeoutMs")
        .or_else(|| section.get("solver").and_then(|s| s.get("timeoutMs")))?;
    ms.as_u64().filter(|&ms| ms > 0)
}

pub struct Backend {
    client: Client,
    docs: Arc<Mutex<Documents>>,
    /// The semantic tokens last sent for each document, by result id, so
    /// that a delta request can be answered with only what changed.
    tokens: Mutex<std::collections::HashMap<Uri, (String, Vec<SemanticToken>)>>,
    next_result_id: std::sync::atomic::AtomicU64,
    /// Whether the client shows `$/progress` (window.workDoneProgress).
    progress: std::sync::atomic::AtomicBool,
    /// Whether hovers and completion documentation go as plain text: the
    /// client said which formats it reads, and Markdown was not one.
    plain_hover: std::sync::atomic::AtomicBool,
    plain_completion_docs: std::sync::atomic::AtomicBool,
    /// Whether the client expands snippets (`$1` placeholders) in completions.
    snippets: std::sync::atomic::AtomicBool,
    /// Set by `shutdown`: an `exit` after it ends the process with 0.
    shut_down: Arc<std::sync::atomic::AtomicBool>,
    /// The client's folders, for workspace symbols of unopened files.
    workspace: Mutex<Arc<crate::workspace::Workspace>>,
    /// How many times each query ran, by name: kept only when
    /// `LAYOUTC_LSP_TEST_HOOKS` is set, for tests of what is memoised.
    executions: Option<Arc<Mutex<std::collections::BTreeMap<String, u64>>>>,
}

/// A database that counts each query's executions into `counts`.
fn counting_database(counts: Arc<Mutex<std::collections::BTreeMap<String, u64>>>) -> Database {
    Database::with_events(move |event| {
        if let layout_ide::salsa::EventKind::WillExecute { database_key } = &event.kind {
            let key = format!("{database_key:?}");
            let query = key.split('(').next().unwrap_or(&key).to_string();
            *counts
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(query)
                .or_default() += 1;
        }
    })
}

impl Backend {
    pub fn new(client: Client, shut_down: Arc<std::sync::atomic::AtomicBool>) -> Backend {
        let executions = std::env::var_os("LAYOUTC_LSP_TEST_HOOKS")
            .map(|_| Arc::new(Mutex::new(std::collections::BTreeMap::new())));
        let docs = Documents {
            host: layout_ide::AnalysisHost::with_database(
                executions
                    .clone()
                    .map(counting_database)
                    .unwrap_or_default(),
            ),
            ..Documents::default()
        };
        Backend {
            client,
            docs: Arc::new(Mutex::new(docs)),
            tokens: Default::default(),
            next_result_id: Default::default(),
            progress: Default::default(),
            plain_hover: Default::default(),
            plain_completion_docs: Default::default(),
            snippets: Default::default(),
            shut_down,
            workspace: Default::default(),
            executions,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Documents> {
        // A panic while the lock was held cannot leave a half-applied edit
        // that matters more than a dead server: go on with the data.
        self.docs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let docs = self.lock();
        let version = docs.version(uri)?;
        let analysis = docs.host.analysis(uri.as_str())?;
        Some(Snapshot {
            in_flight: docs.in_flight.register(&analysis),
            text: analysis.text().clone(),
            index: analysis.line_index().clone(),
            analysis,
            version,
        })
    }

    /// Runs `f` on the document at `uri` and a position in it.
    async fn at<T: Send + 'static>(
        &self,
        what: &'static str,
        uri: &Uri,
        pos: Position,
        f: impl FnOnce(&Snapshot, usize) -> Option<T> + Send + 'static,
    ) -> Result<Option<T>> {
        let Some(snap) = self.snapshot(uri) else {
            return Ok(None);
        };
        query::run(snap, what, move |s| {
            let offset = convert::offset(&s.index, &s.text, pos);
            f(s, offset)
        })
        .await
    }

    async fn whole<T: Send + 'static>(
        &self,
        what: &'static str,
        uri: &Uri,
        f: impl FnOnce(&Snapshot) -> Option<T> + Send + 'static,
    ) -> Result<Option<T>> {
        let Some(snap) = self.snapshot(uri) else {
            return Ok(None);
        };
        query::run(snap, what, f).await
    }

    /// The document's semantic tokens now, remembered under a new result id.
    async fn tokens_now(&self, uri: &Uri) -> Result<Option<(String, Vec<SemanticToken>)>> {
        let data = self
            .whole("semanticTokens", uri, |s| {
                let tokens = s.analysis.semantic_tokens();
                Some(convert::semantic_tokens(&s.index, &s.text, &tokens))
            })
            .await?;
        let Some(data) = data else {
            return Ok(None);
        };
        let id = self
            .next_result_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .to_string();
        self.tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(uri.clone(), (id.clone(), data.clone()));
        Ok(Some((id, data)))
    }

    /// `layoutc/panicForTest`: a request whose work panics, so that tests
    /// can watch the server answer with an error and go on. It exists only
    /// when `LAYOUTC_LSP_TEST_HOOKS` is set.
    pub async fn panic_for_test(&self) -> Result<()> {
        if std::env::var_os("LAYOUTC_LSP_TEST_HOOKS").is_none() {
            return Err(tower_lsp_server::jsonrpc::Error::method_not_found());
        }
        query::run((), "panicForTest", |_| -> () {
            panic!("a deliberate panic for a test")
        })
        .await
    }

    /// `layoutc/executionsForTest`: how many times each query has run in
    /// this server, by name (only when `LAYOUTC_LSP_TEST_HOOKS` is set).
    pub async fn executions_for_test(&self) -> Result<std::collections::BTreeMap<String, u64>> {
        match &self.executions {
            Some(counts) => Ok(counts.lock().unwrap_or_else(|e| e.into_inner()).clone()),
            None => Err(tower_lsp_server::jsonrpc::Error::method_not_found()),
        }
    }

    /// Checks the document and publishes its diagnostics, unless a newer
    /// edit made them stale while they were computed.
    async fn publish_diagnostics(&self, uri: Uri) {
        let Some(snap) = self.snapshot(&uri) else {
            return;
        };
        let version = snap.version;
        let uri2 = uri.clone();
        // Checking a file with `solve` blocks runs the solver (Z3 up to its
        // time limit): the client shows that as work in progress.
        let solves = snap.analysis.solve_block_count();
        let progress = if solves > 0 && self.progress.load(std::sync::atomic::Ordering::Relaxed) {
            let id = self
                .next_result_id
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let token = ProgressToken::String(format!("layoutc/solve/{id}"));
            match self.client.create_work_done_progress(token.clone()).await {
                Ok(()) => Some(
                    self.client
                        .progress(token, "layoutc")
                        .with_message(format!(
                            "solving {solves} block(s) of {}",
                            uri.path().as_str().rsplit('/').next().unwrap_or("")
                        ))
                        .begin()
                        .await,
                ),
                Err(_) => None,
            }
        } else {
            None
        };
        let result = query::run(snap, "diagnostics", move |s| {
            s.analysis
                .diagnostics()
                .into_iter()
                .map(|d| to_lsp_diagnostic(s, &uri2, d))
                .collect::<Vec<_>>()
        })
        .await;
        if let Some(p) = progress {
            p.finish_with_message("solved").await;
        }
        let Ok(diagnostics) = result else {
            return; // cancelled by a newer edit, which publishes its own
        };
        let current = self.lock().version(&uri);
        if current == Some(version) {
            self.client
                .publish_diagnostics(uri, diagnostics, Some(version))
                .await;
        }
    }
}

fn to_lsp_diagnostic(
    s: &Snapshot,
    uri: &Uri,
    d: layout_ide::diagnostics::EditorDiagnostic,
) -> Diagnostic {
    let range = convert::range(&s.index, &s.text, d.span);
    Diagnostic {
        range,
        severity: Some(match d.severity {
            layout_ide::Severity::Error => DiagnosticSeverity::ERROR,
            layout_ide::Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: d
            .doc_url
            .parse::<Uri>()
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some("layoutc".into()),
        message: d.message,
        related_information: (!d.related.is_empty()).then(|| {
            d.related
                .iter()
                .map(|(span, text)| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), convert::range(&s.index, &s.text, *span)),
                    message: text.clone(),
                })
                .collect()
        }),
        tags: None,
        data: None,
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let shows_progress = params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false);
        self.progress
            .store(shows_progress, std::sync::atomic::Ordering::Relaxed);
        let text_caps = params.capabilities.text_document.as_ref();
        let plain = |formats: Option<&Vec<MarkupKind>>| {
            formats.is_some_and(|f| !f.contains(&MarkupKind::Markdown))
        };
        self.plain_hover.store(
            plain(
                text_caps
                    .and_then(|t| t.hover.as_ref())
                    .and_then(|h| h.content_format.as_ref()),
            ),
            std::sync::atomic::Ordering::Relaxed,
        );
        self.plain_completion_docs.store(
            plain(
                text_caps
                    .and_then(|t| t.completion.as_ref())
                    .and_then(|c| c.completion_item.as_ref())
                    .and_then(|i| i.documentation_format.as_ref()),
            ),
            std::sync::atomic::Ordering::Relaxed,
        );
        self.snippets.store(
            text_caps
                .and_then(|t| t.completion.as_ref())
                .and_then(|c| c.completion_item.as_ref())
                .and_then(|i| i.snippet_support)
                .unwrap_or(false),
            std::sync::atomic::Ordering::Relaxed,
        );
        if let Some(options) = &params.initialization_options {
            let ms = solver_timeout(options);
            self.lock().set_solver_timeout(ms);
        }
        if let Ok(mut workspace) = self.workspace.lock() {
            *workspace = Arc::new(crate::workspace::Workspace::new(crate::workspace::roots(
                &params,
            )));
        }
        if let Some(pid) = params.process_id {
            crate::parent::watch(pid);
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "layoutc".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            capabilities: ServerCapabilities {
                position_encoding: Some(PositionEncodingKind::UTF16),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                document_highlight_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Right(RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: Default::default(),
                })),
                document_symbol_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec!["#".into(), ".".into(), "{".into(), " ".into()]),
                    ..Default::default()
                }),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".into(), ",".into()]),
                    ..Default::default()
                }),
                semantic_tokens_provider: Some(
                    SemanticTokensServerCapabilities::SemanticTokensOptions(
                        SemanticTokensOptions {
                            legend: convert::semantic_legend(),
                            full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                            range: Some(true),
                            ..Default::default()
                        },
                    ),
                ),
                inlay_hint_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                document_formatting_provider: Some(OneOf::Left(true)),
                document_range_formatting_provider: Some(OneOf::Left(true)),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    async fn shutdown(&self) -> Result<()> {
        self.shut_down
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.lock().open(doc.uri.clone(), doc.version, doc.text);
        self.publish_diagnostics(doc.uri).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before the first `.await` (see documents.rs).
        let uri = params.text_document.uri;
        let open = self
            .lock()
            .change(&uri, params.text_document.version, params.content_changes);
        if open {
            self.publish_diagnostics(uri).await;
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let ms = solver_timeout(&params.settings);
        let uris: Vec<Uri> = {
            let mut docs = self.lock();
            docs.set_solver_timeout(ms);
            docs.uris()
        };
        for uri in uris {
            self.publish_diagnostics(uri).await;
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.publish_diagnostics(params.text_document.uri).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.lock().close(&uri);
        self.tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&uri);
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let plain = self.plain_hover.load(std::sync::atomic::Ordering::Relaxed);
        self.at(
            "hover",
            &p.text_document.uri,
            p.position,
            move |s, offset| {
                let h = s.analysis.hover(offset)?;
                Some(Hover {
                    contents: HoverContents::Markup(convert::markup(h.markdown, plain)),
                    range: Some(convert::range(&s.index, &s.text, h.span)),
                })
            },
        )
        .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let p = params.text_document_position_params;
        let uri = p.text_document.uri.clone();
        // Where a relative `loc("kernel.py":12:5)` may be: beside the dump,
        // or under a workspace folder.
        let mut bases: Vec<std::path::PathBuf> = uri
            .to_file_path()
            .and_then(|f| f.parent().map(|d| d.to_path_buf()))
            .into_iter()
            .collect();
        if let Ok(w) = self.workspace.lock() {
            bases.extend(w.roots.iter().cloned());
        }
        self.at(
            "definition",
            &p.text_document.uri,
            p.position,
            move |s, offset| {
                let mut found: Vec<Location> = Vec::new();
                if let Some(t) = s.analysis.definition(offset) {
                    found.push(Location::new(
                        uri,
                        convert::range(&s.index, &s.text, t.name_span),
                    ));
                }
                // A `#loc` also leads to the Python line it names, when that
                // file is here.
                for l in s.analysis.source_locations(offset) {
                    let path = std::path::Path::new(&l.path);
                    let file = if path.is_absolute() {
                        Some(path.to_path_buf()).filter(|p| p.is_file())
                    } else {
                        bases.iter().map(|b| b.join(path)).find(|p| p.is_file())
                    };
                    if let Some(target) = file.and_then(Uri::from_file_path) {
                        let at =
                            Position::new(l.line.saturating_sub(1), l.column.saturating_sub(1));
                        found.push(Location::new(target, Range::new(at, at)));
                    }
                }
                match found.len() {
                    0 => None,
                    1 => found.pop().map(GotoDefinitionResponse::Scalar),
                    _ => Some(GotoDefinitionResponse::Array(found)),
                }
            },
        )
        .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let p = params.text_document_position;
        let include_declaration = params.context.include_declaration;
        let uri = p.text_document.uri.clone();
        self.at(
            "references",
            &p.text_document.uri,
            p.position,
            move |s, offset| {
                let refs = s.analysis.references(offset);
                Some(
                    refs.into_iter()
                        .filter(|o| include_declaration || !o.is_declaration)
                        .map(|o| {
                            Location::new(uri.clone(), convert::range(&s.index, &s.text, o.span))
                        })
                        .collect(),
                )
            },
        )
        .await
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        let p = params.text_document_position_params;
        self.at(
            "highlight",
            &p.text_document.uri,
            p.position,
            |s, offset| {
                let occurrences = s.analysis.highlight(offset);
                Some(
                    occurrences
                        .into_iter()
                        .map(|o| DocumentHighlight {
                            range: convert::range(&s.index, &s.text, o.span),
                            kind: Some(if o.is_declaration {
                                DocumentHighlightKind::WRITE
                            } else {
                                DocumentHighlightKind::READ
                            }),
                        })
                        .collect(),
                )
            },
        )
        .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        self.at(
            "prepareRename",
            &params.text_document.uri,
            params.position,
            |s, offset| {
                let span = s.analysis.prepare_rename(offset).ok()?;
                Some(PrepareRenameResponse::Range(convert::range(
                    &s.index, &s.text, span,
                )))
            },
        )
        .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let p = params.text_document_position;
        let uri = p.text_document.uri.clone();
        let new_name = params.new_name;
        let answer = self
            .at(
                "rename",
                &p.text_document.uri,
                p.position,
                move |s, offset| {
                    Some(s.analysis.rename(offset, &new_name).map(|edits| {
                        edits
                            .iter()
                            .map(|e| convert::text_edit(&s.index, &s.text, e))
                            .collect::<Vec<_>>()
                    }))
                },
            )
            .await?;
        match answer {
            None => Ok(None),
            Some(Err(why)) => Err(tower_lsp_server::jsonrpc::Error::invalid_params(why)),
            Some(Ok(edits)) => {
                let mut changes = std::collections::HashMap::new();
                changes.insert(uri, edits);
                Ok(Some(WorkspaceEdit::new(changes)))
            }
        }
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.whole("documentSymbol", &params.text_document.uri, |s| {
            let symbols = s
                .analysis
                .document_symbols()
                .into_iter()
                .map(|sym| convert::document_symbol(&s.index, &s.text, sym))
                .collect();
            Some(DocumentSymbolResponse::Nested(symbols))
        })
        .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        let uris: Vec<Uri> = self.lock().uris();
        let query = params.query.to_lowercase();
        let mut out = Vec::new();
        for uri in uris {
            let q = query.clone();
            let u = uri.clone();
            let found = self
                .whole("workspaceSymbol", &uri, move |s| {
                    let symbols = s
                        .analysis
                        .flat_symbols()
                        .into_iter()
                        .filter(|(sym, _)| sym.name.to_lowercase().contains(&q))
                        .map(|(sym, container)| {
                            #[allow(deprecated)] // a required field of the type
                            SymbolInformation {
                                name: sym.name,
                                kind: convert::symbol_kind(sym.kind),
                                tags: None,
                                deprecated: None,
                                location: Location::new(
                                    u.clone(),
                                    convert::range(&s.index, &s.text, sym.name_span),
                                ),
                                container_name: container,
                            }
                        })
                        .collect::<Vec<_>>();
                    Some(symbols)
                })
                .await?;
            out.extend(found.unwrap_or_default());
        }
        // The folder's other files, from disk.
        let open: std::collections::HashSet<std::path::PathBuf> = self
            .lock()
            .uris()
            .iter()
            .filter_map(|u| u.to_file_path().map(|p| p.into_owned()))
            .collect();
        let workspace = self.workspace.lock().map(|w| w.clone()).unwrap_or_default();
        let on_disk = tokio::task::spawn_blocking(move || {
            let mut found = Vec::new();
            for path in workspace.files() {
                if open.contains(&path) {
                    continue;
                }
                let Some(uri) = Uri::from_file_path(&path) else {
                    continue;
                };
                for sym in workspace.symbols(&path).iter() {
                    if sym.name.to_lowercase().contains(&query) {
                        #[allow(deprecated)] // a required field of the type
                        found.push(SymbolInformation {
                            name: sym.name.clone(),
                            kind: sym.kind,
                            tags: None,
                            deprecated: None,
                            location: Location::new(uri.clone(), sym.range),
                            container_name: sym.container.clone(),
                        });
                    }
                }
            }
            found
        })
        .await
        .unwrap_or_default();
        out.extend(on_disk);
        Ok(Some(WorkspaceSymbolResponse::Flat(out)))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.whole("foldingRange", &params.text_document.uri, |s| {
            Some(
                s.analysis
                    .folding_ranges()
                    .into_iter()
                    .map(|f| {
                        let r = convert::range(&s.index, &s.text, f.span);
                        FoldingRange {
                            start_line: r.start.line,
                            end_line: r.end.line,
                            kind: Some(if f.is_comment {
                                FoldingRangeKind::Comment
                            } else {
                                FoldingRangeKind::Region
                            }),
                            ..Default::default()
                        }
                    })
                    .collect(),
            )
        })
        .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        let plain = self
            .plain_completion_docs
            .load(std::sync::atomic::Ordering::Relaxed);
        let snippets = self.snippets.load(std::sync::atomic::Ordering::Relaxed);
        self.at(
            "completion",
            &p.text_document.uri,
            p.position,
            move |s, offset| {
                let items = s
                    .analysis
                    .completions(offset)
                    .into_iter()
                    .map(|c| {
                        let (insert, format) = match (c.snippet, snippets) {
                            (Some(snippet), true) => (snippet, InsertTextFormat::SNIPPET),
                            _ => (c.insert, InsertTextFormat::PLAIN_TEXT),
                        };
                        CompletionItem {
                            label: c.label,
                            kind: Some(convert::completion_kind(c.kind)),
                            detail: c.detail,
                            documentation: c
                                .doc
                                .map(|d| Documentation::MarkupContent(convert::markup(d, plain))),
                            sort_text: Some(c.sort),
                            insert_text_format: Some(format),
                            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                                convert::range(&s.index, &s.text, c.replace),
                                insert,
                            ))),
                            ..Default::default()
                        }
                    })
                    .collect();
                Some(CompletionResponse::Array(items))
            },
        )
        .await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let p = params.text_document_position_params;
        self.at(
            "signatureHelp",
            &p.text_document.uri,
            p.position,
            |s, offset| {
                let h = s.analysis.signature_help(offset)?;
                let utf16 = |byte: usize| h.label[..byte].encode_utf16().count() as u32;
                Some(SignatureHelp {
                    signatures: vec![SignatureInformation {
                        label: h.label.clone(),
                        documentation: Some(Documentation::String(h.doc.into())),
                        parameters: Some(
                            h.params
                                .iter()
                                .zip(&h.param_docs)
                                .map(|(&(a, b), doc)| ParameterInformation {
                                    label: ParameterLabel::LabelOffsets([utf16(a), utf16(b)]),
                                    documentation: Some(Documentation::String(doc.to_string())),
                                })
                                .collect(),
                        ),
                        active_parameter: h.active.map(|a| a as u32),
                    }],
                    active_signature: Some(0),
                    active_parameter: h.active.map(|a| a as u32),
                })
            },
        )
        .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        let now = self.tokens_now(&params.text_document.uri).await?;
        Ok(now.map(|(id, data)| {
            SemanticTokensResult::Tokens(SemanticTokens {
                result_id: Some(id),
                data,
            })
        }))
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        let range = params.range;
        self.whole("semanticTokensRange", &params.text_document.uri, move |s| {
            let span = convert::span(&s.index, &s.text, range);
            let tokens: Vec<_> = s
                .analysis
                .semantic_tokens()
                .into_iter()
                .filter(|t| t.span.end > span.start && t.span.start < span.end)
                .collect();
            Some(SemanticTokensRangeResult::Tokens(SemanticTokens {
                result_id: None,
                data: convert::semantic_tokens(&s.index, &s.text, &tokens),
            }))
        })
        .await
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let uri = params.text_document.uri;
        let previous = self
            .tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&uri)
            .filter(|(id, _)| *id == params.previous_result_id)
            .map(|(_, data)| data.clone());
        let Some((id, data)) = self.tokens_now(&uri).await? else {
            return Ok(None);
        };
        Ok(Some(match previous {
            Some(old) => SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta {
                result_id: Some(id),
                edits: convert::tokens_delta(&old, &data),
            }),
            None => SemanticTokensFullDeltaResult::Tokens(SemanticTokens {
                result_id: Some(id),
                data,
            }),
        }))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let range = params.range;
        self.whole("inlayHint", &params.text_document.uri, move |s| {
            let span = convert::span(&s.index, &s.text, range);
            Some(
                s.analysis
                    .inlay_hints(Some(span))
                    .into_iter()
                    .map(|h| InlayHint {
                        position: convert::position(&s.index, &s.text, h.offset),
                        label: InlayHintLabel::String(h.label),
                        kind: Some(InlayHintKind::TYPE),
                        text_edits: None,
                        tooltip: None,
                        padding_left: Some(h.padding_left),
                        padding_right: Some(true),
                        data: None,
                    })
                    .collect(),
            )
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        let range = params.range;
        let only = params.context.only.clone();
        let diagnostics = params.context.diagnostics.clone();
        self.whole("codeAction", &params.text_document.uri, move |s| {
            let span = convert::span(&s.index, &s.text, range);
            let wanted = |kind: &CodeActionKind| {
                // `only: ["refactor"]` asks for every refactor.rewrite too.
                only.as_ref().is_none_or(|only| {
                    only.iter().any(|o| {
                        kind.as_str() == o.as_str()
                            || kind.as_str().starts_with(&format!("{}.", o.as_str()))
                    })
                })
            };
            let actions = s
                .analysis
                .code_actions(span)
                .into_iter()
                .filter_map(|a| {
                    let kind = match a.kind {
                        layout_ide::code_actions::ActionKind::QuickFix => CodeActionKind::QUICKFIX,
                        layout_ide::code_actions::ActionKind::Rewrite => {
                            CodeActionKind::REFACTOR_REWRITE
                        }
                    };
                    if !wanted(&kind) {
                        return None;
                    }
                    let edits = a
                        .edits
                        .iter()
                        .map(|e| convert::text_edit(&s.index, &s.text, e))
                        .collect();
                    let mut changes = std::collections::HashMap::new();
                    changes.insert(uri.clone(), edits);
                    // The client's diagnostics this action fixes.
                    let fixed: Vec<Diagnostic> = a
                        .fixes
                        .map(|f| convert::range(&s.index, &s.text, f))
                        .map(|r| {
                            diagnostics
                                .iter()
                                .filter(|d| d.range == r)
                                .cloned()
                                .collect()
                        })
                        .unwrap_or_default();
                    Some(CodeActionOrCommand::CodeAction(CodeAction {
                        title: a.title,
                        is_preferred: a.fixes.map(|_| true),
                        diagnostics: (!fixed.is_empty()).then_some(fixed),
                        kind: Some(kind),
                        edit: Some(WorkspaceEdit::new(changes)),
                        ..Default::default()
                    }))
                })
                .collect();
            Some(actions)
        })
        .await
    }

    async fn range_formatting(
        &self,
        params: DocumentRangeFormattingParams,
    ) -> Result<Option<Vec<TextEdit>>> {
        let range = params.range;
        self.whole("rangeFormatting", &params.text_document.uri, move |s| {
            let span = convert::span(&s.index, &s.text, range);
            Some(
                s.analysis
                    .format_range(span)
                    .iter()
                    .map(|e| convert::text_edit(&s.index, &s.text, e))
                    .collect(),
            )
        })
        .await
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.whole("formatting", &params.text_document.uri, |s| {
            Some(
                s.analysis
                    .format()
                    .iter()
                    .map(|e| convert::text_edit(&s.index, &s.text, e))
                    .collect(),
            )
        })
        .await
    }
}
