-- :checkhealth agent-lsp — what a person checks first when the agent does not answer:
-- the server on PATH and its version, the endpoint reachable and the model listed,
-- the command sandbox, and what this plugin adds to Neovim's client.
-- The endpoint and sandbox facts come from `agent-lsp doctor --json`, so they are the
-- server's own view (its settings files, its environment), never a second guess here.
local compat = require('agent-lsp.compat')

local M = {}

local function doctor(exe)
  local ok, out = pcall(vim.fn.system, { exe, 'doctor', '--json' })
  if not ok or vim.v.shell_error ~= 0 then
    return nil, (type(out) == 'string' and out ~= '' and vim.split(out, '\n', { plain = true })[1]) or 'no answer'
  end
  local parsed, report = pcall(vim.json and vim.json.decode or vim.fn.json_decode, out)
  if not parsed or type(report) ~= 'table' then
    return nil, 'its answer was not JSON'
  end
  return report
end

local function endpoint(h, report)
  local e = report.endpoint or {}
  local where = tostring(e.base_url or '?')
  h.info('endpoint ' .. where .. ', model ' .. tostring(e.model or '?') .. ', API key ' ..
    (e.key_set and 'set' or 'not set'))
  if e.reachable ~= true then
    h.error('the endpoint cannot be reached: ' .. tostring(e.error or 'no answer'), {
      'Set AGENT_BASE_URL (an OpenAI-compatible .../v1) in the environment Neovim starts in,',
      'or baseUrl in ~/.config/agent-lsp/settings.json; start the model server (ollama serve, llama-server ...).',
    })
  elseif e.listed == true then
    h.ok('the endpoint answers GET /models and lists ' .. tostring(e.model))
  elseif e.listed == false then
    local some = table.concat(vim.list_slice(e.models or {}, 1, 8), ', ')
    h.warn('the endpoint answers but does not list the model ' .. tostring(e.model) ..
      (some ~= '' and (' (it lists: ' .. some .. ')') or ''), { 'Set AGENT_MODEL to one it lists.' })
  else
    h.info('the endpoint answers; it does not list its models (' .. tostring(e.error or 'no list') .. ')')
  end
end

local function sandbox(h, report)
  local s = report.sandbox
  if type(s) ~= 'table' then
    h.info('sandbox: this agent-lsp does not report one')
  elseif s.active then
    h.ok('sandbox: ' .. tostring(s.summary or 'on'))
  else
    h.warn('sandbox: ' .. tostring(s.summary or 'off'))
  end
end

function M.check()
  local h = compat.health()
  h.start('agent-lsp')
  local plugin = require('agent-lsp')
  if plugin.config == nil then
    h.warn('require("agent-lsp").setup() has not run: nothing starts the server', {
      'Call require("agent-lsp").setup({}) in init.lua (or opts = {} with lazy.nvim).',
    })
  end
  local config = plugin.config or plugin.defaults
  local exe = config.cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    h.error(exe .. ' is not on PATH', {
      'pipx install /path/to/agent-lsp, or put its full path in setup({ cmd = { "/path/to/agent-lsp", "serve" } })',
    })
    return
  end
  local report, why = doctor(exe)
  if not report then
    h.ok(exe .. ' found: ' .. vim.fn.exepath(exe))
    h.warn('`' .. exe .. ' doctor --json` did not answer (' .. why .. '): version, endpoint and sandbox not checked')
  else
    h.ok(exe .. ' ' .. tostring(report.version or '?') .. ' (' .. vim.fn.exepath(exe) .. ')')
    endpoint(h, report)
    sandbox(h, report)
  end
  h.start('agent-lsp: what the plugin adds')
  h.info('capabilities: workspace.workspaceEdit.changeAnnotationSupport (the diff preview of each edit), ' ..
    'experimental.agentLsp.saveDocument (accepted edits saved by Neovim), ' ..
    'experimental.agentLsp.diagnostics (the agent sees every diagnostic Neovim shows)')
  h.info('commands: :AgentTask :AgentFix :AgentCancel :AgentNewSession :AgentUndo')
  local running = compat.all_clients('agent-lsp')
  if #running > 0 then
    h.ok(#running .. ' agent-lsp client(s) running')
  else
    h.info('no agent-lsp client running yet (it starts with the first file opened)')
  end
  if not compat.has('nvim-0.7') then
    h.error('Neovim 0.7 or newer is needed')
  end
end

return M
