package ext

import "time"

// SetInterceptDeadline shortens the interceptor watchdog so a test need not
// wait 4.5 s for it.
func SetInterceptDeadline(e *Extension, d time.Duration) { e.interceptDeadline = d }
