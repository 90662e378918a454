-- PATCH with _rev: each entry of the pool is updated in turn with the _rev from its last answer, so no request
-- conflicts (the pool is far larger than the number of requests in flight).
local ids, revs, n, i = {}, {}, 0, 0
-- wrk.format replaces wrk.headers (the Authorization given with -H) when handed a table: start from a copy.
function json_headers()
  local headers = {}
  for key, value in pairs(wrk.headers) do headers[key] = value end
  headers["Content-Type"] = "application/json"
  return headers
end
function init(args)
  for line in io.lines(args[1]) do
    local id, rev = line:match("^(%S+) (%S+)")
    n = n + 1
    ids[n] = id
    revs[id] = rev
  end
end
function request()
  i = i % n + 1
  local id = ids[i]
  local body = '{"data":{"price":' .. i .. '},"_rev":"' .. revs[id] .. '"}'
  return wrk.format("PATCH", wrk.path .. "/" .. id, json_headers(), body)
end
function response(status, headers, body)
  local id = body:match('"item":{"id":"(%w+)"')
  local rev = body:match('"_rev":"([^"]+)"')
  if id and rev then revs[id] = rev end
end
