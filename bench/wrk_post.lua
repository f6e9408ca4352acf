-- wrk script of bench/api_load.py: POST /api/v1/submissions as many users, each at most PER_USER times.
--
--   wrk -t T -c C -d D -s bench/wrk_post.lua URL -- TOKENS_FILE BODY_FILE FIRST LAST PER_USER T
--
-- TOKENS_FILE has one API token per line; users FIRST..LAST-1 (0-based lines) belong to this run.
-- Thread t of T sends its k-th request (k from 0) as user FIRST + t + T * floor(k / PER_USER), so no
-- user posts more than PER_USER times (the concurrent quota) unless the slice runs out, which is
-- counted as "exhausted" (the users then wrap around and start getting 429). done() prints one
-- line of JSON for api_load.py: counts by status, socket errors and latency percentiles in ms.

local threads = {}

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

local function read_lines(path)
  local lines = {}
  for line in io.lines(path) do
    if #line > 0 then table.insert(lines, line) end
  end
  return lines
end

function init(args)
  tokens = read_lines(args[1])
  local f = assert(io.open(args[2], "rb"))
  body = f:read("*a")
  f:close()
  first, last, per_user, nthreads = tonumber(args[3]), tonumber(args[4]), tonumber(args[5]), tonumber(args[6])
  sent, exhausted, statuses = 0, 0, {}
end

function request()
  local user = first + tid + nthreads * math.floor(sent / per_user)
  sent = sent + 1
  if user >= last then
    exhausted = exhausted + 1
    user = first + (user - first) % (last - first)
  end
  return wrk.format("POST", nil, {["Authorization"] = "Token " .. tokens[user + 1],
                                  ["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts, exhausted_total = {}, 0
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do
      counts[status] = (counts[status] or 0) + n
    end
    exhausted_total = exhausted_total + thread:get("exhausted")
  end
  local parts = {}
  for status, n in pairs(counts) do table.insert(parts, string.format('"%d": %d', status, n)) end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests": %d, "duration_us": %d, "statuses": {%s}, "socket_errors": %d, "exhausted": %d, '
    .. '"p50": %.3f, "p95": %.3f, "p99": %.3f, "max": %.3f}\n',
    summary.requests, summary.duration, table.concat(parts, ", "), e.connect + e.read + e.write + e.timeout,
    exhausted_total, latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
end
