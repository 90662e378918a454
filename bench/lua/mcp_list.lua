-- MCP tools/call content_list: the newest 50 entries, like REST's list50_createdAt.
function request()
  local headers = {}
  for key, value in pairs(wrk.headers) do headers[key] = value end
  headers["Content-Type"] = "application/json"
  headers["Accept"] = "application/json, text/event-stream"
  headers["MCP-Protocol-Version"] = "2025-11-25"
  local body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"content_list",'
    .. '"arguments":{"collection":"bench","limit":50}}}'
  return wrk.format("POST", wrk.path, headers, body)
end
