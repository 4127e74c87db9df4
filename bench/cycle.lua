-- wrk script: cycle through the request paths listed (one per line) in $PATHS_FILE.
-- The requests are formatted once per thread in init(), so that wrk spends as little CPU per
-- request as it does without a script: it shares the two cores with the server it measures.
local requests = {}
local i = 0
init = function(args)
    for line in io.lines(os.getenv("PATHS_FILE")) do
        requests[#requests + 1] = wrk.format("GET", line)
    end
end
request = function()
    i = i % #requests + 1
    return requests[i]
end
