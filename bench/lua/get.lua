-- GET one entry by id, cycling through the ids listed in the file given after `--`.
local ids, n, i = {}, 0, 0
function init(args)
  for line in io.lines(args[1]) do
    n = n + 1
    ids[n] = line:match("^(%S+)")
  end
end
function request()
  i = i % n + 1
  return wrk.format("GET", wrk.path .. "/" .. ids[i])
end
