-- Drives Neovim's own LSP client (0.7+) against a language server, headless, for an end-to-end test.
--
-- Run:  PLANSIGHT_NVIM_CONFIG=config.json nvim --headless -u NONE -i NONE -n -c "luafile neovim_diagnostics.lua"
--
-- config.json: {
--   "server_cmd": [...],  "root_dir": "...",  "file": "...",  "output": "...",  "timeout_ms": 30000,
--   "edit": {"line": 0-based line index, "text": "replacement line"},
--   "hover": {"line": 0, "character": 0}   (optional)
-- }
--
-- Steps: open `file` (filetype pddl), attach a client, wait for the diagnostics of the opened version;
-- hover at `hover` if the server offers it; replace line `edit.line` with `edit.text` through
-- nvim_buf_set_lines (so the client sends a real didChange) and wait for the diagnostics of the new
-- version; stop the server; write everything as JSON to `output`; quit (exit code 1 on failure).
--
-- Everything is callback driven: in 0.7 a blocking vim.wait() here would keep the client from reading
-- the server's messages, so a libuv timer polls the state instead.

local uv = vim.loop
local started = uv.hrtime()

local function ms_since_start()
  return math.floor((uv.hrtime() - started) / 1e6)
end

local config_path = os.getenv('PLANSIGHT_NVIM_CONFIG')
local config = vim.json.decode(table.concat(vim.fn.readfile(config_path), '\n'))

local result = {
  nvim_version = tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch,
  published = {}, -- every publishDiagnostics the client received, in order
  events = {},    -- milestone -> ms since the script started
}

local function event(name)
  result.events[name] = ms_since_start()
end

local function finish(failure)
  result.failure = failure
  event('finished')
  local file = assert(io.open(config.output, 'w'))
  file:write(vim.json.encode(result))
  file:close()
  vim.cmd(failure and 'cquit 1' or 'qall!')
end

-- What the user sees: the diagnostics Neovim stored for the buffer, with only JSON-safe fields.
local function shown(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, code = d.code, message = d.message, source = d.source,
    })
  end
  return out
end

-- The real handler still runs (it feeds vim.diagnostic); this only keeps a copy of what arrived.
local default_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
local function recording_publish(err, params, ctx, handler_config)
  table.insert(result.published, {
    uri = params.uri, version = params.version, diagnostics = params.diagnostics, at_ms = ms_since_start(),
  })
  return default_publish(err, params, ctx, handler_config)
end

vim.cmd('edit ' .. vim.fn.fnameescape(config.file))
local bufnr = vim.api.nvim_get_current_buf()
vim.bo[bufnr].filetype = 'pddl' -- 0.7 has no pddl filetype; it is also the languageId of didOpen
local uri = vim.uri_from_bufnr(bufnr)

local server_exit
local client_id = vim.lsp.start_client({
  name = 'plansight',
  cmd = config.server_cmd,
  root_dir = config.root_dir,
  handlers = { ['textDocument/publishDiagnostics'] = recording_publish },
  on_init = function() event('initialized') end,
  on_exit = function(code, signal) server_exit = { code = code, signal = signal } end,
})
if not client_id then
  finish('vim.lsp.start_client refused the configuration')
  return
end
vim.lsp.buf_attach_client(bufnr, client_id)

-- The publication for `uri` at buffer version `version`, if it has arrived.
local function publication(version)
  for _, p in ipairs(result.published) do
    if p.uri == uri and p.version == version then
      return p
    end
  end
end

local step = 'open'
local expected_version
local deadline = config.timeout_ms or 30000
local timer = uv.new_timer()

local function poll()
  if step == 'done' then
    return
  end
  if ms_since_start() > deadline then
    local waiting_in = step
    step = 'done'
    timer:stop()
    finish('timed out in step "' .. waiting_in .. '"')
    return
  end
  if server_exit and step ~= 'stopping' then
    step = 'done'
    timer:stop()
    result.server_exit = server_exit
    finish('the server exited early')
    return
  end

  if step == 'open' then
    -- 0.7 sends didOpen only once the server is initialized, always as version 0, and records the
    -- version just then: until it is set there is nothing to wait for
    expected_version = vim.lsp.util.buf_versions[bufnr]
    local p = expected_version ~= nil and publication(expected_version)
    if p then
      event('diagnostics_on_open')
      result.opened = { version = expected_version, published = p, shown = shown(bufnr) }
      step = 'hover'
    end
  elseif step == 'hover' then
    local client = vim.lsp.get_client_by_id(client_id)
    if config.hover and client.supports_method('textDocument/hover') then
      step = 'hovering'
      local params = { textDocument = { uri = uri }, position = config.hover }
      vim.lsp.buf_request(bufnr, 'textDocument/hover', params, function(err, hover)
        event('hover')
        result.hover = { supported = true, error = err, result = hover }
        step = 'edit'
      end)
    else
      result.hover = { supported = false }
      step = 'edit'
    end
  elseif step == 'edit' then
    vim.api.nvim_buf_set_lines(bufnr, config.edit.line, config.edit.line + 1, false, { config.edit.text })
    expected_version = vim.lsp.util.buf_versions[bufnr]
    event('edited')
    step = 'after_edit'
  elseif step == 'after_edit' then
    local p = publication(expected_version)
    if p then
      event('diagnostics_after_edit')
      result.edited = { version = expected_version, published = p, shown = shown(bufnr) }
      step = 'stopping'
      vim.lsp.get_client_by_id(client_id).stop()
    end
  elseif step == 'stopping' then
    if server_exit then
      step = 'done'
      timer:stop()
      result.server_exit = server_exit
      event('server_exited')
      finish(nil)
    end
  end
end

timer:start(20, 20, vim.schedule_wrap(poll))
