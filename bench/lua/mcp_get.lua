-- MCP tools/call content_get (2025-11-25, JSON answers), cycling through the ids of the file given after `--`, in the
-- collection named after it (default "bench").
local ids, n, i, collection = {}, 0, 0, "bench"
-- wrk.format replaces wrk.headers (the Authorization given with -H) when handed a table: start from a copy.
function mcp_headers()
  local headers = {}
  for key, value in pairs(wrk.headers) do headers[key] = value end
  headers["Content-Type"] = "application/json"
  headers["Accept"] = "application/json, text/event-stream"
  headers["MCP-Protocol-Version"] = "2025-11-25"
  return headers
end
function init(args)
  collection = args[2] or collection
  for line in io.lines(args[1]) do
    n = n + 1
    ids[n] = line:match("^(%S+)")
  end
end
function request()
  i = i % n + 1
  local body = '{"jsonrpc":"2.0","id":' .. i .. ',"method":"tools/call","params":{"name":"content_get",'
    .. '"arguments":{"collection":"' .. collection .. '","id":"' .. ids[i] .. '"}}}'
  return wrk.format("POST", wrk.path, mcp_headers(), body)
end
