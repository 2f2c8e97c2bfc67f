import type { Scenario } from './scenarios.js';

/**
 * The Lua that drives wrk for one scenario: the same requests as the
 * autocannon lists in bench/scenarios.ts (bodies, methods, the prime stride
 * over the groups, a group never rotated by two requests at once), built by
 * string concatenation so the load generator stays far cheaper per request
 * than either side it measures. wrk runs it with one thread (`-t1`).
 *
 * Arguments (after `--`): the groups file (one `id token` a line), the run id,
 * the API key, and `service` or `ceiling` (the ceiling answers every rotation
 * with the same canned group, so its runs hand out groups without checking
 * them out). `done` prints one line `WRK_RESULT {json}` with the counts, the
 * latency percentiles and, for rotate, the tokens the service handed out.
 */
const PRELUDE = `
local ids, tokens, n = {}, {}, 0
local runId, key, side
local head
local stride, i = 7919, 0

function init(args)
  for line in io.lines(args[1]) do
    local id, token = line:match("^(%S+)%s?(%S*)$")
    if id then n = n + 1; ids[n] = id; tokens[n] = token end
  end
  runId, key, side = args[2], args[3], args[4]
  changed = {}
  prepare()
end

local function frame(method, body)
  return head[method] .. #body .. "\\r\\n\\r\\n" .. body
end

local function nextIndex()
  i = (i + stride) % n
  return i + 1
end

local function heads(host)
  head = {}
  for _, method in ipairs({ "GET", "PUT", "POST" }) do
    head[method] = method .. " " .. PATH .. " HTTP/1.1\\r\\nHost: " .. host .. "\\r\\nAuthorization: Token " .. key ..
      "\\r\\nContent-Type: application/json\\r\\nContent-Length: "
  end
end

function prepare()
  heads(wrk.headers["Host"] or (wrk.host .. ":" .. wrk.port))
end

local threads = {}
function setup(thread) table.insert(threads, thread) end

function done(summary, latency, requests)
  local e = summary.errors
  local out = {}
  for _, thread in ipairs(threads) do
    local c = thread:get("changed")
    if c then for id, token in pairs(c) do table.insert(out, '"' .. id .. '":"' .. token .. '"') end end
    -- Rotations cut off by the end of the run: their new token is unknown, so "" retires the group from rotating.
    local b = thread:get("busy")
    if b then for id in pairs(b) do table.insert(out, '"' .. id .. '":""') end end
  end
  io.write(string.format('WRK_RESULT {"requests":%d,"durationMicros":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p99":%d,"tokens":{%s}}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    math.floor(latency:percentile(50)), math.floor(latency:percentile(99)), table.concat(out, ",")))
end
`;

const SCENARIO_LUA: Record<Scenario['name'], string> = {
  hit: `
PATH = "/api/user"
function request() return frame("GET", '{"user_group_id":"' .. ids[nextIndex()] .. '"}') end
`,
  create: `
PATH = "/api/user"
local made = 0
function request()
  made = made + 1
  return frame("GET", '{"user_group_id":"' .. runId .. '-' .. made .. '","name":"Bench","mapping":{"40":"213"},"properties":{"region":"eu"}}')
end
`,
  update: `
PATH = "/api/user"
local made = 0
function request()
  made = made + 1
  return frame("PUT", '{"user_group_id":"' .. ids[nextIndex()] .. '","name":"Renamed ' .. made .. '","properties":{"n":' .. made .. '}}')
end
`,
  // Groups are checked out of a queue for one request and put back, with the token the answer
  // carries, when it comes; answers are matched to groups by provided_id, not by connection.
  rotate: `
PATH = "/api/user"
local idle, first, last, filled = {}, 1, 0, false
busy = {}
local function started()
  if filled then return end
  filled = true
  for k = 1, n do if tokens[k] ~= "" then last = last + 1; idle[last] = k end end
end
function request()
  started()
  if side == "ceiling" then return frame("POST", '{"current_token":"' .. tokens[nextIndex()] .. '"}') end
  if first > last then return frame("POST", '{"current_token":"none-idle"}') end
  local k = idle[first]; idle[first] = nil; first = first + 1
  busy[ids[k]] = k
  return frame("POST", '{"current_token":"' .. tokens[k] .. '"}')
end
function response(status, headers, body)
  if side == "ceiling" then return end
  local id = body:match('"provided_id":"([^"]*)"')
  local k = id and busy[id]
  if not k then return end
  busy[id] = nil
  if status == 200 then
    local token = body:match('"token":"([^"]*)"')
    if token then tokens[k] = token; changed[id] = token end
  end
  last = last + 1; idle[last] = k
end
`,
  mint: `
PATH = "/api/embed_sessions"
function request() return frame("POST", '{"user_group_id":"' .. ids[nextIndex()] .. '","dashboard":"sales"}') end
`,
};

export function wrkScript(scenario: Scenario['name']): string {
  // The prelude first: the scenario's functions see its locals only if they are declared before them.
  return `${PRELUDE}\n${SCENARIO_LUA[scenario]}`;
}
