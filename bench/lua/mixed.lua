-- The mixed workload: 80% reads (70% one entry by id, 10% a list page of 50), 10% writes (create), 10% search
-- (one word, two words, or a phrase). Ids come from the file given after `--`. Fixed seed: every run sends the same
-- sequence.
local ids, n, counter = {}, 0, 0
local words = {"river", "stone", "garden", "market", "winter", "harbor", "bridge", "signal", "morning", "forest"}
local stamp = tostring(os.time())
local base = "/_cms/api/content/bench"
function init(args)
  for line in io.lines(args[1]) do
    n = n + 1
    ids[n] = line:match("^(%S+)")
  end
  math.randomseed(20261122)
end
function with_json()
  local headers = {}
  for key, value in pairs(wrk.headers) do headers[key] = value end
  headers["Content-Type"] = "application/json"
  return headers
end
function word()
  return words[math.random(#words)]
end
function request()
  local roll = math.random(100)
  if roll <= 70 then
    return wrk.format("GET", base .. "/" .. ids[math.random(n)])
  elseif roll <= 80 then
    return wrk.format("GET", base .. "?limit=50&orderBy=createdAt")
  elseif roll <= 90 then
    counter = counter + 1
    local body = '{"data":{"title":"Mixed ' .. stamp .. ' ' .. counter .. '","price":' .. counter .. '}}'
    return wrk.format("POST", base, with_json(), body)
  end
  local kind = math.random(3)
  local q = word()
  if kind == 2 then
    q = word() .. "+" .. word()
  elseif kind == 3 then
    q = "%22" .. word() .. "+" .. word() .. "%22"
  end
  return wrk.format("GET", "/_cms/api/search?collections=bench&q=" .. q)
end
