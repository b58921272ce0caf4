-- Neovim's built-in LSP client (0.7, Debian's package) against `denpex lsp`, headless:
-- open a training log, get the diagnostic and the hover, choose the quick fix, apply it to
-- train.py and save it with :write. Exits 0 when every step worked, 1 with a message otherwise.
local bin = assert(os.getenv('DENPEX_BINARY'), 'DENPEX_BINARY is not set')
local dir = assert(os.getenv('WORKDIR'), 'WORKDIR is not set')

local function fail(msg)
  io.stderr:write('nvim-lsp-flow: FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local function step(name, fn)
  local ok, err = pcall(fn)
  if not ok then fail(name .. ': ' .. tostring(err)) end
  io.stdout:write('nvim-lsp-flow: ok: ' .. name .. '\n')
end

local client_id, buf, diag

step('start the client and open train.log', function()
  client_id = vim.lsp.start_client({
    name = 'denpex',
    cmd = { bin, 'lsp' },
    root_dir = dir,
    workspace_folders = { { uri = vim.uri_from_fname(dir), name = 'ws' } },
  })
  assert(client_id, 'start_client returned nil')
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/train.log'))
  buf = vim.api.nvim_get_current_buf()
  assert(vim.lsp.buf_attach_client(buf, client_id), 'attach failed')
end)

step('diagnostics arrive', function()
  local ok = vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  assert(ok, 'no diagnostics within 20 s')
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == 'adamw-eps-fp16-underflow' then diag = d end
  end
  assert(diag, 'no adamw-eps-fp16-underflow diagnostic')
  assert(diag.source == 'denpex', 'source: ' .. tostring(diag.source))
  assert(diag.lnum == 16, 'line: ' .. tostring(diag.lnum))
  assert(diag.severity == vim.diagnostic.severity.ERROR, 'severity')
end)

step('hover shows the root cause', function()
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = diag.lnum, character = 0 } }
  local results = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 10000)
  local value = results and results[client_id] and results[client_id].result and results[client_id].result.contents.value
  assert(value, 'no hover')
  assert(value:find('Root cause', 1, true), 'hover without root cause')
  assert(value:find('eps=1e-5', 1, true), 'hover without the fix')
end)

step('choose the quick fix and apply it to train.py', function()
  -- What vim.lsp.buf.code_action() sends: the line's diagnostics converted back to LSP.
  local line_diags = vim.lsp.diagnostic.get_line_diagnostics(buf, diag.lnum, {}, client_id)
  assert(#line_diags == 2, 'line diagnostics (the cause and its NaN symptom, both on line 17): ' .. #line_diags)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = diag.lnum, character = 0 }, ['end'] = { line = diag.lnum, character = 0 } },
    context = { diagnostics = line_diags },
  }
  local results = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000)
  local actions = results and results[client_id] and results[client_id].result
  assert(actions and #actions == 1, 'code actions: ' .. (actions and #actions or 0))
  local action = actions[1]
  assert(action.title == 'Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)', 'title: ' .. action.title)
  assert(action.edit, 'action without an edit')
  local client = vim.lsp.get_client_by_id(client_id)
  vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or 'utf-16')
  local py = vim.fn.bufnr(dir .. '/train.py')
  assert(py > 0, 'train.py was not loaded by the edit')
  vim.api.nvim_buf_call(py, function() vim.cmd('write') end)
end)

step('train.py on disk has eps=1e-5 and compiles', function()
  local text = table.concat(vim.fn.readfile(dir .. '/train.py'), '\n')
  assert(text:find('optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)', 1, true), 'edit not on disk')
  vim.fn.system({ 'python3', '-m', 'py_compile', dir .. '/train.py' })
  assert(vim.v.shell_error == 0, 'py_compile failed')
end)

step('shut the server down', function()
  vim.lsp.stop_client(client_id)
  local ok = vim.wait(10000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  assert(ok, 'client did not stop')
end)

vim.cmd('qall!')
