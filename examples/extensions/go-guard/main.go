// go-guard: a tool_call interceptor that refuses dangerous bash commands
// and keeps an audit log.
//
// Every call of the bash tool is checked against a short list of rules
// (rules below); a match blocks the call, and the reason is what the model
// sees as the tool's error. Every decision on a bash call, allowed or
// blocked, is one JSON line appended to audit.jsonl in the extension's data
// directory (hello_ack's data_dir). Other tools are allowed unlogged.
//
//	/guard      the rules and how many calls were allowed and blocked
//
// The rules are patterns, not a shell parser: they catch the usual
// accidents and the copy-pasted installers, not a determined adversary.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"zot.dev/sdk/go/ext"
)

// AuditFile is written in the data directory; extension.json names it in
// watch_ignore so that logging a decision does not reload the extension.
const AuditFile = "audit.jsonl"

type rule struct {
	name    string
	reason  string
	pattern *regexp.Regexp
}

// flags matches any run of options before an operand: "-rf ", "-r -f ",
// "--no-preserve-root ".
const flags = `(?:-{1,2}[A-Za-z][\w-]*\s+)*`

var rules = []rule{
	{"rm-root", "deletes / or the home directory recursively",
		regexp.MustCompile(`(?:^|[\s;&|(])rm\s+` + flags + `-(?:[A-Za-z]*[rR][A-Za-z]*|-recursive)\s+` + flags +
			`(?:/\*?|~/?\*?|\$HOME/?\*?|"\$HOME"/?)(?:$|[\s;&|)])`)},
	{"pipe-to-shell", "runs a downloaded script unread (curl or wget piped into a shell)",
		regexp.MustCompile(`\b(?:curl|wget)\b[^|;&]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b`)},
	{"mkfs", "formats a file system",
		regexp.MustCompile(`\bmkfs(?:\.\w+)?\s`)},
	{"dd-disk", "writes over a disk device",
		regexp.MustCompile(`\bdd\b[^;&|]*\bof=/dev/(?:sd|hd|vd|xvd|nvme|mmcblk)`)},
	{"fork-bomb", "is a fork bomb",
		regexp.MustCompile(`:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:`)},
	{"chmod-root", "makes everything under / writable by everyone",
		regexp.MustCompile(`\bchmod\s+` + flags + `-[A-Za-z]*R[A-Za-z]*\s+` + flags + `0?777\s+/(?:$|[\s;&|])`)},
}

// check returns the rule @command breaks, or nil.
func check(command string) *rule {
	for i := range rules {
		if rules[i].pattern.MatchString(command) {
			return &rules[i]
		}
	}
	return nil
}

type entry struct {
	Time     string `json:"time"`
	Tool     string `json:"tool"`
	Command  string `json:"command"`
	Decision string `json:"decision"`
	Rule     string `json:"rule,omitempty"`
}

type guard struct {
	e       *ext.Extension
	mu      sync.Mutex
	allowed int
	blocked int
}

// audit appends one decision to the log; a log that cannot be written is
// reported once per failure in the extension's log, and the decision
// stands.
func (g *guard) audit(en entry) {
	line, err := json.Marshal(en)
	if err != nil {
		g.e.Logf("audit: %v", err)
		return
	}
	path := filepath.Join(g.e.Host().DataDir, AuditFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		g.e.Logf("audit: %v", err)
		return
	}
	defer f.Close()
	// One write per line: concurrent decisions do not interleave.
	if _, err := f.Write(append(line, '\n')); err != nil {
		g.e.Logf("audit: %v", err)
	}
}

func (g *guard) intercept(tool string, args json.RawMessage) (bool, string) {
	if tool != "bash" {
		return true, ""
	}
	var in struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		// The bash tool refuses such arguments itself.
		return true, ""
	}
	en := entry{Time: time.Now().UTC().Format(time.RFC3339), Tool: tool, Command: in.Command, Decision: "allow"}
	r := check(in.Command)
	if r != nil {
		en.Decision, en.Rule = "block", r.name
	}

	g.mu.Lock()
	if r != nil {
		g.blocked++
	} else {
		g.allowed++
	}
	g.audit(en)
	g.mu.Unlock()

	if r == nil {
		return true, ""
	}
	return false, fmt.Sprintf("go-guard refused this command: it %s (rule %s)", r.reason, r.name)
}

func (g *guard) summary(args string) ext.Response {
	g.mu.Lock()
	defer g.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "go-guard: %d allowed, %d blocked; audit log %s\n", g.allowed, g.blocked,
		filepath.Join(g.e.Host().DataDir, AuditFile))
	for _, r := range rules {
		fmt.Fprintf(&b, "- %s: refuses what %s\n", r.name, r.reason)
	}
	return ext.Display(strings.TrimSuffix(b.String(), "\n"))
}

func main() {
	e := ext.New("go-guard", "1.0.0")
	g := &guard{e: e}
	e.InterceptToolCall(g.intercept)
	e.Command("guard", "Show go-guard's rules and decisions", g.summary)
	if err := e.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-guard:", err)
		os.Exit(1)
	}
}
