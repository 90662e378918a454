-- GET the request paths listed in the file given after `--`, one per line, in turn (search and suggest queries).
local paths, n, i = {}, 0, 0
function init(args)
  for line in io.lines(args[1]) do
    n = n + 1
    paths[n] = line
  end
end
function request()
  i = i % n + 1
  return wrk.format("GET", paths[i])
end
