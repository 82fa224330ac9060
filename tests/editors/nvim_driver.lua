-- Drives a real Neovim (0.7 or 0.10+) the way a person would, for tests/editors.
--
-- Neovim starts with the plugin (nvim-client/, set up in its init.lua as the docs say,
-- verbatim) and the file on its command line; this script then runs the plan in
-- $AGENT_TEST_PLAN (JSON) step by step: keys typed (mappings such as `gra` or
-- <leader>aa, `:AgentTask ...`), waits, `:checktime` and `:w`. Prompts are the real
-- ones (vim.ui.select/inputlist, confirm()): a thin wrapper only types the scripted
-- answer as keyboard input before the real prompt reads it, and records what was
-- asked. Everything observed goes to the plan's result file as JSON.

local uv = vim.uv or vim.loop
local plan = vim.json.decode(io.open(os.getenv('AGENT_TEST_PLAN')):read('*a'))
local t0 = uv.now()
local R = { prompts = {}, steps = {}, errors = {}, version = vim.version() }

local function save()
  local f = assert(io.open(plan.result, 'w'))
  f:write(vim.json.encode(R))
  f:close()
end

local function ms()
  return uv.now() - t0
end

-- A watchdog that works even while a prompt blocks the editor: record and leave.
local dog = uv.new_timer()
dog:start(plan.timeout * 1000, 0, function()
  R.timed_out = R.step or 'start'
  pcall(save)
  os.exit(3)
end)

local answers = { pick = plan.pick or {}, confirm = plan.confirm or {} }
-- A key "typed" on the keyboard: the raw input queue, which is what prompts read
-- (confirm() and the "(y/n)" of :w read it directly, unlike nvim_feedkeys' typeahead).
local function feed(keys)
  vim.api.nvim_input(keys)
end

-- vim.ui.select (code actions; command questions on 0.10+) and the 0.7 command question
-- both end in inputlist(): answer with the number of the item holding the wanted label.
local inputlist = vim.fn.inputlist
vim.fn.inputlist = function(items)
  local want = table.remove(answers.pick, 1)
  local key = '<Esc>' -- nothing scripted: dismiss
  local labels = {}
  for _, item in ipairs(items) do
    local n, label = tostring(item):match('^(%d+)[:.] (.*)$')
    if n then
      labels[#labels + 1] = label
      if want and key == '<Esc>' and label:find(want, 1, true) then
        key = n .. '<CR>'
      end
    end
  end
  R.prompts[#R.prompts + 1] = { kind = 'list', title = tostring(items[1]), items = labels, want = want or vim.NIL, t = ms() }
  feed(key)
  local choice = inputlist(items)
  R.prompts[#R.prompts].choice = choice
  return choice
end

-- What is on screen: the visible lines of every window of the tab page.
local function screen()
  local out = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    local top, bot = unpack(vim.api.nvim_win_call(win, function()
      return { vim.fn.line('w0'), vim.fn.line('w$') }
    end))
    out[#out + 1] = {
      name = vim.api.nvim_buf_get_name(buf),
      filetype = vim.api.nvim_buf_get_option(buf, 'filetype'),
      text = table.concat(vim.api.nvim_buf_get_lines(buf, top - 1, bot, false), '\n'),
    }
  end
  return out
end

-- confirm(): the edit confirmation (the documented configs' preview handler; Neovim's own otherwise).
local confirm = vim.fn.confirm
vim.fn.confirm = function(msg, ...)
  local want = table.remove(answers.confirm, 1)
  R.prompts[#R.prompts + 1] = { kind = 'confirm', title = msg, want = want or vim.NIL, t = ms(), screen = screen() }
  feed(want or '<Esc>')
  local choice = confirm(msg, ...)
  R.prompts[#R.prompts].choice = choice
  return choice
end

local function agent_client()
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = 0 }) or vim.lsp.buf_get_clients(0)
  for _, c in pairs(clients) do
    if c.name == 'agent-lsp' then
      return c
    end
  end
end

local function messages()
  return vim.fn.execute('messages')
end

-- Was a prompt shown while running fn? Type a sentinel key first: a prompt eats it.
local function prompted_while(sentinel, fn)
  feed(sentinel)
  local before = messages()
  local ok, err = pcall(fn)
  local left = vim.fn.getchar(0)
  while vim.fn.getchar(0) ~= 0 do
  end
  local after = messages()
  return { prompted = left == 0, ok = ok, err = err and tostring(err) or vim.NIL, said = after:sub(#before + 1) }
end

local function buffer_state()
  local buf = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  return {
    text = table.concat(lines, '\n') .. '\n',
    modified = vim.bo[buf].modified,
    name = vim.api.nvim_buf_get_name(buf),
  }
end

local steps = {}

function steps.attach(s)
  local ok = vim.wait(s.ms or 15000, function()
    local c = agent_client()
    return c ~= nil and c.initialized ~= false and c.server_capabilities ~= nil
  end, 20)
  assert(ok, 'agent-lsp did not attach')
end

function steps.diagnostics(s)
  -- What a linter (nvim-lint, null-ls, ...) does: diagnostics in its own namespace.
  local ns = vim.api.nvim_create_namespace(s.namespace or 'test-linter')
  vim.diagnostic.set(ns, 0, s.items)
end

-- What the buffer shows from every source (language servers, linters): wait for a
-- diagnostic whose message holds s.text (or, with s.absent, for it to go); record them.
function steps.wait_diagnostics(s)
  local function all()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(0)) do
      out[#out + 1] = { message = d.message, source = d.source or vim.NIL, lnum = d.lnum, code = d.code or vim.NIL }
    end
    return out
  end
  local function hit()
    for _, d in ipairs(all()) do
      if d.message:find(s.text, 1, true) then
        return true
      end
    end
    return false
  end
  local start = ms()
  local ok = vim.wait(s.ms or 15000, function()
    if s.absent then
      return not hit()
    end
    return hit()
  end, 20)
  R[s.name or 'diagnostics'] = { items = all(), t = ms(), waited = ms() - start }
  assert(ok, (s.absent and 'still a' or 'no') .. ' diagnostic containing ' .. s.text)
end

function steps.lint_rules(s)
  -- A linter that checks again after every change (nvim-lint on TextChanged), publishing
  -- after `delay_ms`: the items of the first rule whose `contains` the buffer holds.
  local ns = vim.api.nvim_create_namespace(s.namespace or 'test-rules')
  local buf = vim.api.nvim_get_current_buf()
  local function lint()
    if not vim.api.nvim_buf_is_loaded(buf) then
      return
    end
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
    local items = s.default or {}
    for _, r in ipairs(s.rules or {}) do
      if text:find(r.contains, 1, true) then
        items = r.items
        break
      end
    end
    vim.diagnostic.set(ns, buf, items)
  end
  lint()
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      vim.defer_fn(lint, s.delay_ms or 0)
    end,
  })
end

function steps.cursor(s)
  vim.api.nvim_win_set_cursor(0, { s.line, s.col or 0 })
end

function steps.keys(s)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(s.keys, true, false, true), 'mx', false)
end

-- Wait until a diagnostic from `source` (e.g. agent-lsp's pending edit) is in the buffer.
function steps.wait_diagnostic(s)
  local found
  local ok = vim.wait(s.ms or 20000, function()
    for _, d in ipairs(vim.diagnostic.get(0)) do
      if d.source == s.source then
        found = d
        return true
      end
    end
    return false
  end, 20)
  assert(ok, 'no diagnostic from ' .. s.source)
  R[s.name or 'diagnostic'] = { message = found.message, lnum = found.lnum, severity = found.severity }
end

function steps.wait_no_diagnostic(s)
  local ok = vim.wait(s.ms or 10000, function()
    for _, d in ipairs(vim.diagnostic.get(0)) do
      if d.source == s.source then
        return false
      end
    end
    return true
  end, 20)
  assert(ok, 'the diagnostics from ' .. s.source .. ' did not go away')
end

function steps.wait_text(s)
  local ok = vim.wait(s.ms or 20000, function()
    return buffer_state().text:find(s.text, 1, true) ~= nil
  end, 20)
  assert(ok, 'the buffer never held ' .. s.text)
end

function steps.wait_message(s)
  local ok = vim.wait(s.ms or 20000, function()
    return messages():find(s.text, 1, true) ~= nil
  end, 20)
  assert(ok, 'no message containing ' .. s.text)
end

function steps.sleep(s)
  vim.wait(s.ms, function()
    return false
  end, 20)
end

function steps.snapshot(s)
  R[s.name or 'buffer'] = buffer_state()
  R[(s.name or 'buffer') .. '_windows'] = #vim.api.nvim_tabpage_list_wins(0)
end

function steps.checktime(s)
  -- What focusing Neovim again does ('autoread' + FocusGained): a W11/W12 dialog eats <CR>.
  R[s.name or 'checktime'] = prompted_while('<CR>', function()
    vim.cmd('checktime')
  end)
end

function steps.write(s)
  -- The person's :w. "The file has been changed since reading it" asks (y/n): say n.
  R[s.name or 'write'] = prompted_while('n', function()
    vim.cmd('write')
  end)
end

local function run()
  for i, s in ipairs(plan.steps) do
    R.step = i .. ':' .. s.step
    local ok, err = pcall(steps[s.step], s)
    R.steps[#R.steps + 1] = { step = s.step, ok = ok, t = ms(), err = (not ok) and tostring(err) or vim.NIL }
    if not ok then
      R.errors[#R.errors + 1] = R.step .. ': ' .. tostring(err)
      break
    end
  end
  R.step = nil
  R.messages = messages()
  R.final = buffer_state()
  R.unanswered = { pick = answers.pick, confirm = answers.confirm }
  save()
end

local ok, err = pcall(run)
if not ok then
  R.errors[#R.errors + 1] = 'driver: ' .. tostring(err)
  save()
end
dog:stop()
vim.cmd('qa!')
