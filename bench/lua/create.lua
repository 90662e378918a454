-- POST a new entry with a distinct title each time (so each gets its own slug).
local counter = 0
-- wrk.format replaces wrk.headers (the Authorization given with -H) when handed a table: start from a copy.
function json_headers()
  local headers = {}
  for key, value in pairs(wrk.headers) do headers[key] = value end
  headers["Content-Type"] = "application/json"
  return headers
end
local stamp = tostring(os.time())
function request()
  counter = counter + 1
  local body = '{"data":{"title":"Bench created ' .. stamp .. ' ' .. counter .. '","price":' .. counter .. '}}'
  return wrk.format("POST", wrk.path, json_headers(), body)
end
