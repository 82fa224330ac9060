-- agent-lsp for Neovim 0.10+ (vim.lsp.start). For 0.7 - 0.9 use nvim-0.7.lua.
-- Load it from init.lua (`dofile('/path/to/nvim.lua')`) or paste it there.
-- The server reads its endpoint from the environment Neovim starts in:
--   AGENT_BASE_URL (an OpenAI-compatible .../v1), AGENT_MODEL, AGENT_API_KEY.
-- `agent-lsp` must be on PATH (or put its full path in `cmd`).
--
-- Code actions: `gra` (0.11+) or <leader>aa. Neovim 0.10+ sends only this server's own
-- diagnostics with a code-action request, so a linter's warning shows just
-- "Ask agent about line N" there; <leader>af (:AgentFix) passes every diagnostic on
-- the line and offers "Fix with agent" for each.

local agent = {
  cmd = { 'agent-lsp', 'serve' },
  filetypes = nil, -- nil: every file; or a list, e.g. { 'python', 'lua' }
  -- How an edit is asked about, while its diff is on screen: true = apply it.
  -- Replace it to use another prompt (e.g. one built on vim.ui.select).
  confirm = function(question)
    return vim.fn.confirm(question, '&Yes\n&No', 2, 'Question') == 1
  end,
}

-- ---------------------------------------------------------------- edit previews
-- Before an agent edit is applied, its unified diff opens in a window at the bottom
-- and stays there while you answer; the answer closes it. The diff is computed here,
-- from your buffer and the very edit Neovim would apply.

local function lines_of(uri)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.uri_from_bufnr(bufnr) == uri then
      return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), true
    end
  end
  local path = vim.uri_to_fname(uri)
  if vim.fn.filereadable(path) == 1 then
    return vim.fn.readfile(path), true
  end
  return {}, false
end

local function edited(lines, edits, encoding)
  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  local plain = {} -- without annotationId: here they only compute the preview
  for i, e in ipairs(edits) do
    plain[i] = { range = e.range, newText = e.newText }
  end
  vim.lsp.util.apply_text_edits(plain, scratch, encoding)
  local out = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
  vim.api.nvim_buf_delete(scratch, { force = true })
  return out
end

-- { uri = edits } of a WorkspaceEdit, whichever form it takes
local function text_edits(edit)
  local out = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument and change.edits then
      out[#out + 1] = { uri = change.textDocument.uri, edits = change.edits }
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    out[#out + 1] = { uri = uri, edits = edits }
  end
  return out
end

function agent.diff_lines(edit, encoding)
  local rows = {}
  for _, item in ipairs(text_edits(edit)) do
    local old, exists = lines_of(item.uri)
    local new = edited(old, item.edits, encoding)
    local name = vim.fn.fnamemodify(vim.uri_to_fname(item.uri), ':~:.')
    local a = #old > 0 and table.concat(old, '\n') .. '\n' or ''
    local b = #new > 0 and table.concat(new, '\n') .. '\n' or ''
    if not exists then
      rows[#rows + 1] = 'new file: ' .. name .. ' (' .. #new .. ' lines)'
    end
    rows[#rows + 1] = '--- ' .. (exists and ('a/' .. name) or '/dev/null')
    rows[#rows + 1] = '+++ b/' .. name
    local diff = vim.diff(a, b, { result_type = 'unified', ctxlen = 3 })
    for _, line in ipairs(vim.split(diff, '\n', { plain = true })) do
      if line ~= '' then
        rows[#rows + 1] = line
      end
    end
  end
  return rows
end

local function open_preview(rows)
  local prev = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, rows)
  vim.bo[buf].filetype = 'diff'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  local height = math.max(3, math.min(#rows, math.floor(vim.o.lines / 2)))
  vim.cmd('botright ' .. height .. 'split')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.wo[win].number = false
  vim.wo[win].wrap = false
  pcall(vim.api.nvim_buf_set_name, buf, 'agent-lsp://preview')
  vim.api.nvim_set_current_win(prev)
  vim.cmd('redraw')
  return win
end

local function needs_confirmation(edit)
  for _, a in pairs(edit.changeAnnotations or {}) do
    if a.needsConfirmation then
      return true
    end
  end
  return false
end

local handlers = {
  -- The agent's edits: show the diff, ask (agent.confirm), close the diff; a "no"
  -- leaves buffer and file untouched and the server tells the agent.
  ['workspace/applyEdit'] = function(err, params, ctx, config)
    local edit = params.edit or {}
    if needs_confirmation(edit) then
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      local win = open_preview(agent.diff_lines(edit, client and client.offset_encoding or 'utf-16'))
      local ok, yes = pcall(agent.confirm, 'Apply ' .. (params.label or 'the agent\'s edit') .. '?')
      pcall(vim.api.nvim_win_close, win, true)
      if not (ok and yes) then
        return { applied = false, failureReason = 'declined in the editor' }
      end
      for _, a in pairs(edit.changeAnnotations) do
        a.needsConfirmation = false -- answered here: Neovim must not ask again
      end
    end
    return vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
  end,
  -- The server asks this after an accepted edit: save the buffer, so buffer, file
  -- timestamp and the server's view stay in step (no "file changed" warning on :w).
  ['agentLsp/saveDocument'] = function(_, params)
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(bufnr) and vim.uri_from_bufnr(bufnr) == params.uri then
        local ei = vim.o.eventignore
        vim.o.eventignore = 'BufWritePre,FileWritePre' -- no format-on-save over the agent's edit
        local ok = pcall(vim.api.nvim_buf_call, bufnr, function()
          vim.cmd('silent update')
        end)
        vim.o.eventignore = ei
        return { saved = ok and not vim.bo[bufnr].modified }
      end
    end
    return { saved = false }
  end,
}

function agent.attach(bufnr)
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == '' or vim.bo[bufnr].buftype ~= '' then
    return
  end
  vim.lsp.start({
    name = 'agent-lsp',
    cmd = agent.cmd,
    root_dir = vim.fs.root(bufnr, { '.git' }) or vim.fs.dirname(file),
    capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), {
      -- the previews above: the server sends needsConfirmation edits instead of its inline review
      workspace = { workspaceEdit = { changeAnnotationSupport = { groupsOnLabel = true } } },
      experimental = { agentLsp = { saveDocument = true, diagnostics = true } },
    }),
    handlers = handlers,
    init_options = {},
  }, { bufnr = bufnr })
end

function agent.client(bufnr)
  local c = vim.lsp.get_clients({ bufnr = bufnr or 0, name = 'agent-lsp' })[1]
  if not c then
    vim.notify('agent-lsp is not attached to this buffer', vim.log.levels.WARN)
  end
  return c
end

-- Run a command of the server through Neovim's own executeCommand path, to agent-lsp
-- only. The answer arrives as a message (window/showMessage); errors show here.
function agent.exec(command, arguments)
  local c = agent.client(0)
  if not c then
    return
  end
  local cmd = { title = command, command = command, arguments = arguments }
  local function done(err)
    if err then
      vim.notify('agent-lsp: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
    end
  end
  if c.exec_cmd then -- 0.11+
    c:exec_cmd(cmd, { bufnr = vim.api.nvim_get_current_buf() }, done)
  else
    c.request('workspace/executeCommand', { command = command, arguments = arguments }, done, 0)
  end
end

-- agentLsp/diagnostics: before and after each edit the server asks what Neovim shows for
-- the file, from every server and linter (vim.diagnostic, all namespaces), so the agent
-- learns what its edit broke. Columns become LSP characters in the negotiated encoding.
-- null: the file is not loaded, or nothing reports on it (the agent then claims nothing).
local function lsp_character(line, col, encoding)
  col = math.min(col or 0, #line)
  if encoding == 'utf-8' then
    return col
  end
  if vim.fn.has('nvim-0.11') == 1 then
    local ok, n = pcall(vim.str_utfindex, line, encoding, col, false)
    return ok and n or col
  end
  local ok, u32, u16 = pcall(vim.str_utfindex, line, col)
  if not ok then
    return col
  end
  return encoding == 'utf-32' and u32 or u16
end

handlers['agentLsp/diagnostics'] = function(_, params, ctx)
  local bufnr
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.uri_from_bufnr(b) == params.uri then
      bufnr = b
    end
  end
  if not bufnr then
    return { diagnostics = vim.NIL }
  end
  local diags = vim.diagnostic.get(bufnr)
  local others = 0
  for _, c in pairs(vim.lsp.get_clients({ bufnr = bufnr })) do
    others = others + (c.name ~= 'agent-lsp' and 1 or 0)
  end
  if #diags == 0 and others == 0 then
    return { diagnostics = vim.NIL }
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = client and client.offset_encoding or 'utf-16'
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local function pos(lnum, col)
    return { line = lnum, character = lsp_character(lines[lnum + 1] or '', col, encoding) }
  end
  local out = {}
  for _, d in ipairs(diags) do
    out[#out + 1] = {
      range = { start = pos(d.lnum, d.col), ['end'] = pos(d.end_lnum or d.lnum, d.end_col or d.col) },
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code,
    }
  end
  return { diagnostics = out }
end

vim.api.nvim_create_autocmd('FileType', {
  pattern = agent.filetypes or '*',
  callback = function(args)
    agent.attach(args.buf)
  end,
})

-- :AgentTask {what to do}  the palette: a task about the current file.
vim.api.nvim_create_user_command('AgentTask', function(o)
  agent.exec('agentLsp.runTask', { { task = o.args, uri = vim.uri_from_bufnr(0) } })
end, { nargs = '+' })
-- Every diagnostic on the cursor's line, from any source (linters too), as LSP diagnostics.
function agent.line_diagnostics()
  local lnum = vim.api.nvim_win_get_cursor(0)[1] - 1
  local diags = vim.diagnostic.get(0, { lnum = lnum })
  if vim.lsp.diagnostic.from then -- 0.11+
    return vim.lsp.diagnostic.from(diags)
  end
  return vim.tbl_map(function(d)
    return (d.user_data and d.user_data.lsp) or {
      range = {
        start = { line = d.lnum, character = d.col },
        ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
      },
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code,
    }
  end, diags)
end

-- :AgentFix  "Fix with agent" for every diagnostic on the line, whatever its source.
vim.api.nvim_create_user_command('AgentFix', function()
  vim.lsp.buf.code_action({
    context = { diagnostics = agent.line_diagnostics() },
    filter = function(a)
      return type(a.command) == 'table' and a.command.command == 'agentLsp.fixDiagnostic'
    end,
    apply = true, -- one diagnostic: no menu
  })
end, {})
vim.api.nvim_create_user_command('AgentCancel', function()
  agent.exec('agentLsp.cancel', {})
end, {})
vim.api.nvim_create_user_command('AgentNewSession', function()
  agent.exec('agentLsp.newSession', {})
end, {})

vim.keymap.set('n', '<leader>aa', vim.lsp.buf.code_action, { desc = 'code actions (Ask agent)' })
vim.keymap.set('n', '<leader>af', '<cmd>AgentFix<cr>', { desc = 'Fix with agent (any diagnostic)' })
vim.keymap.set('n', '<leader>at', ':AgentTask ', { desc = 'agent task' })
vim.keymap.set('n', '<leader>ac', '<cmd>AgentCancel<cr>', { desc = 'cancel the agent' })

return agent
