-- wrk script: cycle through the request paths listed (one per line) in $PATHS_FILE.
local paths = {}
for line in io.lines(os.getenv("PATHS_FILE")) do paths[#paths + 1] = line end
local i = 0
request = function()
    i = i % #paths + 1
    return wrk.format("GET", paths[i])
end
