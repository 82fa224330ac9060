-- The few Neovim APIs that differ between 0.7 and 0.12, in one place, so the rest of
-- the plugin reads the same on every version it supports.
local M = {}

M.has = function(feature)
  return vim.fn.has(feature) == 1
end

-- The clients attached to a buffer (get_clients is 0.10+; buf_get_clients is older).
function M.clients(bufnr, name)
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ bufnr = bufnr, name = name })
  else
    list = {}
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if name == nil or c.name == name then
        list[#list + 1] = c
      end
    end
  end
  return list
end

-- Every running client called `name`, attached or not.
function M.all_clients(name)
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  local out = {}
  for _, c in pairs(all) do
    if c.name == name then
      out[#out + 1] = c
    end
  end
  return out
end

function M.buf_option(bufnr, name, value)
  if value == nil then
    return vim.api.nvim_buf_get_option(bufnr, name)
  end
  vim.api.nvim_buf_set_option(bufnr, name, value)
end

function M.win_option(win, name, value)
  vim.api.nvim_win_set_option(win, name, value)
end

-- The workspace root of a file: the nearest folder holding one of `markers`, else its folder.
function M.root(file, markers)
  if vim.fs and vim.fs.root then -- 0.10+
    local found = vim.fs.root(file, markers)
    if found then
      return found
    end
  else
    local dir = vim.fn.fnamemodify(file, ':p:h')
    for _, marker in ipairs(markers) do
      local hit = vim.fn.finddir(marker, dir .. ';')
      if hit == '' then
        hit = vim.fn.findfile(marker, dir .. ';')
      end
      if hit ~= '' then
        return vim.fn.fnamemodify(hit, ':p:h:h')
      end
    end
  end
  return vim.fn.fnamemodify(file, ':p:h')
end

-- A buffer column (bytes) as an LSP character in `encoding`.
function M.lsp_character(line, col, encoding)
  col = math.min(col or 0, #line)
  if encoding == 'utf-8' then
    return col
  end
  if M.has('nvim-0.11') then
    local ok, n = pcall(vim.str_utfindex, line, encoding, col, false)
    return ok and n or col
  end
  local ok, u32, u16 = pcall(vim.str_utfindex, line, col)
  if not ok then
    return col
  end
  return encoding == 'utf-32' and u32 or u16
end

-- The loaded buffer showing `uri`, if any.
function M.buf_of_uri(uri)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.uri_from_bufnr(bufnr) == uri then
      return bufnr
    end
  end
end

-- The health API: vim.health.start/ok/... (0.10+), report_* (0.8, 0.9), or the 0.7 module.
function M.health()
  local h = vim.health
  if h == nil or h.start == nil and h.report_start == nil then
    h = require('health')
  end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

return M
