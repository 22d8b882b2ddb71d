package huesim

import (
	"math"
	"strings"

	"golang.org/x/time/rate"
)

// limits are the bridge's command budgets: the Hue documentation asks for
// about 10 light commands per second and 1 group command per second; a
// bridge pushed harder answers 503 / error 901. Token buckets model that:
// short bursts pass, a sustained excess is refused.
type limits struct {
	lights *rate.Limiter
	groups *rate.Limiter
}

func newLimits(perSecond float64, burst int) *limits {
	return &limits{
		lights: rate.NewLimiter(rate.Limit(perSecond), burst),
		groups: rate.NewLimiter(1, 2),
	}
}

// allow takes a token for a command on the resource path (/lights/1/state,
// /groups/0/action) and reports whether the bridge can take it now. Scene
// writes (/scenes) are on neither budget: the documentation gives none,
// and node-hue-api 4.0.11 rate-limits only light states and group actions
// (its HueApiRateLimits; a recall is a group action and counts as one).
func (l *limits) allow(path string) bool {
	if strings.HasPrefix(path, "/scenes") {
		return true
	}
	if strings.HasPrefix(path, "/groups") {
		return l.groups.Allow()
	}
	return l.lights.Allow()
}

// setRate changes the light-command budget (test control).
func (l *limits) setRate(perSecond float64, burst int) {
	l.lights.SetLimit(rate.Limit(perSecond))
	l.lights.SetBurst(burst)
}

// setGroupRate changes the group-command budget (test control); an
// infinite rate lifts it.
func (l *limits) setGroupRate(perSecond float64, burst int) {
	limit := rate.Limit(perSecond)
	if math.IsInf(perSecond, 1) {
		limit = rate.Inf
	}
	l.groups.SetLimit(limit)
	l.groups.SetBurst(burst)
}
