-- agent-lsp for Neovim 0.7 to 0.12: require("agent-lsp").setup({...}) starts
-- `agent-lsp serve` for every file (or the filetypes given), shows each agent edit's
-- diff while it asks, saves accepted edits through Neovim, answers the server's
-- agentLsp/diagnostics, and adds :AgentTask, :AgentFix, :AgentCancel, :AgentNewSession,
-- :AgentUndo and their key maps. `:help agent-lsp`, `:checkhealth agent-lsp`.
--
-- The server reads its endpoint from the environment Neovim starts in
-- (AGENT_BASE_URL, AGENT_MODEL, AGENT_API_KEY) or from `init_options`.
local compat = require('agent-lsp.compat')
local handlers = require('agent-lsp.handlers')
local preview = require('agent-lsp.preview')

local M = {}

local NAME = 'agent-lsp'

M.defaults = {
  cmd = { 'agent-lsp', 'serve' },
  filetypes = nil, -- nil: every file; or a list, e.g. { 'python', 'lua' }
  root_markers = { '.git' },
  init_options = {}, -- initializationOptions: the settings of docs/protocol.md
  -- How an edit is asked about, while its diff is on screen: true = apply it.
  confirm = function(question)
    return vim.fn.confirm(question, '&Yes\n&No', 2, 'Question') == 1
  end,
  -- false: no key maps; or a table with some keys set to false.
  keymaps = {
    code_actions = '<leader>aa',
    fix = '<leader>af',
    task = '<leader>at',
    cancel = '<leader>ac',
  },
}

M.config = nil
M.clients = {} -- 0.7: root folder -> client id (0.8+ reuses clients itself)

-- What this plugin adds to Neovim's client capabilities: the previews (so the server
-- sends needsConfirmation edits instead of its inline review), saving through Neovim
-- and the diagnostics answer.
M.added_capabilities = {
  workspace = { workspaceEdit = { changeAnnotationSupport = { groupsOnLabel = true } } },
  experimental = { agentLsp = { saveDocument = true, diagnostics = true } },
}

local function merged(opts)
  local config = vim.tbl_deep_extend('force', {}, M.defaults, opts or {})
  -- lists are replaced, not merged index by index
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if opts and opts[key] ~= nil then
      config[key] = opts[key]
    end
  end
  if opts and opts.keymaps == false then
    config.keymaps = false
  end
  return config
end

local function client_config(root)
  local config = M.config
  return {
    name = NAME,
    cmd = config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), M.added_capabilities),
    handlers = {
      ['workspace/applyEdit'] = preview.apply_edit_handler(function(q)
        return M.config.confirm(q)
      end),
      ['agentLsp/saveDocument'] = handlers.save_document,
      ['agentLsp/diagnostics'] = handlers.diagnostics,
    },
    init_options = config.init_options,
  }
end

--- Attach agent-lsp to a buffer (what the FileType autocmd does).
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == '' or compat.buf_option(bufnr, 'buftype') ~= '' then
    return
  end
  local root = compat.root(file, M.config.root_markers)
  if vim.lsp.start then -- 0.8+
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = M.clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(client_config(root))
    M.clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- The agent-lsp client of a buffer, or nil (with a warning).
function M.client(bufnr)
  local c = compat.clients(bufnr or 0, NAME)[1]
  if not c then
    vim.notify('agent-lsp is not attached to this buffer', vim.log.levels.WARN)
  end
  return c
end

--- Run a command of the server (workspace/executeCommand, to agent-lsp only).
--- The answer arrives as a message (window/showMessage); errors show here.
function M.exec(command, arguments)
  local c = M.client(0)
  if not c then
    return
  end
  local function done(err)
    if err then
      vim.notify('agent-lsp: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
    end
  end
  if c.exec_cmd then -- 0.11+
    c:exec_cmd({ title = command, command = command, arguments = arguments },
      { bufnr = vim.api.nvim_get_current_buf() }, done)
  else
    c.request('workspace/executeCommand', { command = command, arguments = arguments }, done,
      vim.api.nvim_get_current_buf())
  end
end

M.diff_lines = preview.diff_lines
M.line_diagnostics = handlers.line_diagnostics

--- "Fix with agent" for every diagnostic on the line, whatever its source. Neovim
--- >= 0.10 sends only a server's own diagnostics with code actions; this sends them all.
function M.fix()
  local diagnostics = handlers.line_diagnostics()
  if compat.has('nvim-0.8') then
    vim.lsp.buf.code_action({
      context = { diagnostics = diagnostics },
      filter = function(a)
        return type(a.command) == 'table' and a.command.command == 'agentLsp.fixDiagnostic'
      end,
      apply = true, -- one diagnostic: no menu
    })
  else
    vim.lsp.buf.code_action({ diagnostics = diagnostics })
  end
end

local function commands()
  local cmd = vim.api.nvim_create_user_command
  cmd('AgentTask', function(o)
    M.exec('agentLsp.runTask', { { task = o.args, uri = vim.uri_from_bufnr(0) } })
  end, { nargs = '+', desc = 'agent-lsp: a task about the current file' })
  cmd('AgentFix', M.fix, { desc = 'agent-lsp: Fix with agent, any diagnostic on the line' })
  cmd('AgentCancel', function()
    M.exec('agentLsp.cancel', {})
  end, { desc = 'agent-lsp: cancel the running task' })
  cmd('AgentNewSession', function()
    M.exec('agentLsp.newSession', {})
  end, { desc = 'agent-lsp: forget the conversation' })
  cmd('AgentUndo', function()
    M.exec('agentLsp.undoTask', {})
  end, { desc = 'agent-lsp: take back the last task' })
end

local function keymaps(keys)
  if not keys then
    return
  end
  local function map(lhs, rhs, desc)
    if lhs then
      vim.keymap.set('n', lhs, rhs, { desc = desc })
    end
  end
  map(keys.code_actions, vim.lsp.buf.code_action, 'code actions (Ask agent)')
  map(keys.fix, '<cmd>AgentFix<cr>', 'Fix with agent (any diagnostic)')
  map(keys.task, ':AgentTask ', 'agent task')
  map(keys.cancel, '<cmd>AgentCancel<cr>', 'cancel the agent')
end

--- Set agent-lsp up; calling it again replaces the earlier set-up.
function M.setup(opts)
  M.config = merged(opts)
  local group = vim.api.nvim_create_augroup('agent-lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes or '*',
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  commands()
  keymaps(M.config.keymaps)
  -- set up after files were opened (lazy-loading): attach those too
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    local ft = vim.api.nvim_buf_is_loaded(bufnr) and compat.buf_option(bufnr, 'filetype') or ''
    if ft ~= '' and (M.config.filetypes == nil or vim.tbl_contains(M.config.filetypes, ft)) then
      M.attach(bufnr)
    end
  end
  return M
end

return M
