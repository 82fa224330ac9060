-- Edit previews: before an agent edit is applied, its unified diff opens in a window at
-- the bottom and stays there while the person answers; the answer closes it. The diff
-- is computed here, from the buffer and the very edit Neovim would apply, so what is
-- shown is what will happen.
local compat = require('agent-lsp.compat')

local M = {}

local function lines_of(uri)
  local bufnr = compat.buf_of_uri(uri)
  if bufnr then
    return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), true
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

-- { uri, edits } for each document a WorkspaceEdit changes, whichever form it takes.
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

-- The unified diff of a WorkspaceEdit, as lines (a new file: its first lines, all added).
function M.diff_lines(edit, encoding)
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

local function open(rows)
  local prev = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, rows)
  compat.buf_option(buf, 'filetype', 'diff')
  compat.buf_option(buf, 'bufhidden', 'wipe')
  compat.buf_option(buf, 'modifiable', false)
  local height = math.max(3, math.min(#rows, math.floor(vim.o.lines / 2)))
  vim.cmd('botright ' .. height .. 'split')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  compat.win_option(win, 'number', false)
  compat.win_option(win, 'wrap', false)
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

-- The `workspace/applyEdit` handler: an edit that needs confirmation shows its diff while
-- `confirm` asks; a "no" leaves buffer and file untouched (the server tells the agent).
-- Once answered here, Neovim must not ask again (0.10+ would, blind), so the annotations
-- lose needsConfirmation before Neovim's own handler applies the edit.
function M.apply_edit_handler(confirm)
  return function(err, params, ctx, config)
    local edit = params.edit or {}
    if needs_confirmation(edit) then
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      local win = open(M.diff_lines(edit, client and client.offset_encoding or 'utf-16'))
      local ok, yes = pcall(confirm, 'Apply ' .. (params.label or "the agent's edit") .. '?')
      pcall(vim.api.nvim_win_close, win, true)
      if not (ok and yes) then
        return { applied = false, failureReason = 'declined in the editor' }
      end
      for _, a in pairs(edit.changeAnnotations) do
        a.needsConfirmation = false
      end
    end
    return vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
  end
end

return M
