-- layoutc lsp driven by Neovim's built-in LSP client (headless).
-- Run: LAYOUTC=target/debug/layoutc nvim --headless --clean -u NONE -l tests/lsp/nvim_client.lua
-- (Neovim 0.7 has no -l: tests/lsp/run-neovim.sh runs it with +luafile.)
-- Exits 0 when every check holds, 1 (with the failures on stderr) otherwise.

local layoutc = os.getenv("LAYOUTC") or "target/debug/layoutc"
local root = vim.fn.getcwd()
local failures = {}

local function check(name, ok, detail)
  if ok then
    io.stdout:write("ok   " .. name .. "\n")
  else
    table.insert(failures, name)
    io.stderr:write("FAIL " .. name .. ": " .. vim.inspect(detail) .. "\n")
  end
end

local diagnostics = {}
local client_id = vim.lsp.start_client({
  name = "layoutc",
  cmd = { layoutc, "lsp" },
  root_dir = root,
  handlers = {
    ["textDocument/publishDiagnostics"] = function(_, result)
      diagnostics[result.uri] = result.diagnostics
    end,
  },
})
check("client starts", client_id ~= nil, client_id)

local path = root .. "/tests/lsp/fixture.lay"
vim.cmd("edit " .. path)
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client_id)
local uri = vim.uri_from_bufnr(buf)
vim.wait(20000, function() return diagnostics[uri] ~= nil end, 50)

local function find(pattern)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(pattern, 1, true)
    if col then return { line = i - 1, character = col - 1 } end
  end
  error("fixture has no " .. pattern)
end

local function request(method, params)
  params.textDocument = { uri = uri }
  local answers = vim.lsp.buf_request_sync(buf, method, params, 20000)
  local answer = answers and answers[client_id]
  if answer == nil then return nil, "no answer" end
  return answer.result, answer.err
end

-- Diagnostics: the fixture's one deliberate error, with its code.
local d = diagnostics[uri] or {}
check("diagnostics", #d == 1 and d[1].code == "E0101", d)

-- Hover on a layout use shows its bases and owners.
local hover = request("textDocument/hover", { position = find("acc(register") })
local text = hover and hover.contents and hover.contents.value or ""
check("hover shows the layout", text:find("owner of each element", 1, true) ~= nil
  and text:find("injective: yes", 1, true) ~= nil, text)

-- Definition of an alias used inside an attribute.
local p = find("parent = #mma")
p.character = p.character + 10
local def = request("textDocument/definition", { position = p })
local loc = def and (def.range and def or def[1])
check("definition", loc and loc.range.start.line == 0 and loc.range.start.character == 0, def)

-- Completion inside a blocked attribute offers its keys.
local c = find("sizePerThread = [1, 4], ")
c.character = c.character + #"sizePerThread = [1, 4], "
local items = request("textDocument/completion", { position = c }) or {}
local labels = {}
for _, it in ipairs(items.items or items) do labels[it.label] = true end
check("completion of attribute keys", labels["threadsPerWarp"] and not labels["sizePerThread"], labels)

-- Rename an alias everywhere, keeping its #.
local edit = request("textDocument/rename", { position = find("#mma ="), newName = "acc_mma" })
local edits = edit and edit.changes and edit.changes[uri] or {}
check("rename", #edits == 3 and edits[1].newText == "#acc_mma", edits)

-- Semantic tokens and symbols answer.
local tokens = request("textDocument/semanticTokens/full", {})
check("semantic tokens", tokens and #tokens.data > 0 and #tokens.data % 5 == 0, tokens)
local symbols = request("textDocument/documentSymbol", {})
check("document symbols", symbols and #symbols == 5, symbols)

vim.lsp.stop_client(client_id)
if #failures > 0 then
  vim.cmd("cquit 1")
else
  vim.cmd("qall!")
end
