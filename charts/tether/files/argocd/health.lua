-- Argo CD health check for every Tether kind: they share the generic
-- reconciler's status (status.observedGeneration and the Ready, Synced and
-- Stalled conditions), so one script serves them all.
--   Progressing being deleted: Tether's finalizer is cleaning up outside
--   Suspended   the tether.dev/reconcile: paused annotation is set
--   Progressing Tether has not acted on this generation yet, or the thing is
--               being created, changed, or waits for the outside world
--   Degraded    Stalled: Tether stopped trying until someone acts
--   Healthy     Ready
-- Argo CD opens only Lua's base and table libraries for it: no string.*,
-- no math.* (internal/argohealth runs it the same way).
local hs = {}
if obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "being deleted: Tether's finalizer removes or releases what the object manages"
  return hs
end
local annotations = obj.metadata.annotations
if annotations ~= nil and annotations["tether.dev/reconcile"] == "paused" then
  hs.status = "Suspended"
  hs.message = "reconciliation is paused by the annotation tether.dev/reconcile=paused"
  return hs
end
local status = obj.status
if status == nil or status.observedGeneration ~= obj.metadata.generation then
  hs.status = "Progressing"
  hs.message = "waiting for Tether to act on generation " .. tostring(obj.metadata.generation)
  return hs
end
local ready = nil
local stalled = nil
if status.conditions ~= nil then
  for _, condition in ipairs(status.conditions) do
    if condition.type == "Ready" then
      ready = condition
    elseif condition.type == "Stalled" and condition.status == "True" then
      stalled = condition
    end
  end
end
if stalled ~= nil then
  hs.status = "Degraded"
  hs.message = stalled.reason .. ": " .. (stalled.message or "")
  return hs
end
if ready == nil then
  -- Tether has reported on this generation without a Ready condition (an
  -- AWSAccount written by a Tether before Ready was added to it).
  hs.status = "Healthy"
  hs.message = "reported on generation " .. tostring(obj.metadata.generation)
  return hs
end
if ready.status == "True" then
  hs.status = "Healthy"
else
  hs.status = "Progressing"
end
hs.message = ready.reason .. ": " .. (ready.message or "")
return hs
