-- The requests agent-lsp sends that Neovim has no handler for: agentLsp/saveDocument and
-- agentLsp/diagnostics (declared in experimental.agentLsp, see docs/protocol.md).
local compat = require('agent-lsp.compat')

local M = {}

-- After an accepted edit the server asks the editor to save the buffer, so buffer, file
-- timestamp and the server's view stay in step (no "file changed" warning on :w).
-- Format-on-save hooks are skipped: they would rewrite the agent's edit unreviewed.
function M.save_document(_, params)
  local bufnr = compat.buf_of_uri(params.uri)
  if not bufnr then
    return { saved = false }
  end
  local ei = vim.o.eventignore
  vim.o.eventignore = 'BufWritePre,FileWritePre'
  local ok = pcall(vim.api.nvim_buf_call, bufnr, function()
    vim.cmd('silent update')
  end)
  vim.o.eventignore = ei
  return { saved = ok and not compat.buf_option(bufnr, 'modified') }
end

-- Before and after each edit the server asks what Neovim shows for the file, from every
-- server and linter (vim.diagnostic, all namespaces), so the agent learns what its edit
-- broke. null: the file is not loaded, or nothing reports on it (the agent then claims
-- nothing). Columns become LSP characters in the negotiated encoding.
function M.diagnostics(_, params, ctx)
  local bufnr = compat.buf_of_uri(params.uri)
  if not bufnr then
    return { diagnostics = vim.NIL }
  end
  local diags = vim.diagnostic.get(bufnr)
  local others = 0
  for _, c in ipairs(compat.clients(bufnr)) do
    others = others + (c.name ~= 'agent-lsp' and 1 or 0)
  end
  if #diags == 0 and others == 0 then
    return { diagnostics = vim.NIL }
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = client and client.offset_encoding or 'utf-16'
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local function pos(lnum, col)
    return { line = lnum, character = compat.lsp_character(lines[lnum + 1] or '', col, encoding) }
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

-- Every diagnostic on the cursor's line, from any source (linters too), as LSP diagnostics.
function M.line_diagnostics()
  local lnum = vim.api.nvim_win_get_cursor(0)[1] - 1
  local diags = vim.diagnostic.get(0, { lnum = lnum })
  if vim.lsp.diagnostic.from then -- 0.11+
    return vim.lsp.diagnostic.from(diags)
  end
  local out = {}
  for _, d in ipairs(diags) do
    out[#out + 1] = (d.user_data and d.user_data.lsp) or {
      range = { -- columns are bytes: exact for ASCII lines, close enough otherwise
        start = { line = d.lnum, character = d.col },
        ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
      },
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code,
    }
  end
  return out
end

return M
