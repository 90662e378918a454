-- POST the JSON bodies listed in the file given after `--` (one per line) in turn, each with __N__ replaced by a
-- counter so that every entry gets its own title and slug.
local bodies, n, i, counter = {}, 0, 0, 0
local stamp = tostring(os.time())
function json_headers()
  local headers = {}
  for key, value in pairs(wrk.headers) do headers[key] = value end
  headers["Content-Type"] = "application/json"
  return headers
end
function init(args)
  for line in io.lines(args[1]) do
    n = n + 1
    bodies[n] = line
  end
end
function request()
  i = i % n + 1
  counter = counter + 1
  local body = bodies[i]:gsub("__N__", stamp .. " " .. counter)
  return wrk.format("POST", wrk.path, json_headers(), body)
end
