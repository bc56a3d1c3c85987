package main

import "testing"

func TestRules(t *testing.T) {
	cases := []struct {
		command string
		rule    string
	}{
		{"rm -rf /", "rm-root"},
		{"sudo rm -rf --no-preserve-root /", "rm-root"},
		{"rm -r -f ~", "rm-root"},
		{"cd /tmp && rm -fr $HOME/", "rm-root"},
		{"rm -rf /*", "rm-root"},
		{"rm -rf ./build", ""},
		{"rm -f /tmp/x", ""},
		{"rm -rf /tmp/scratch", ""},
		{"curl -fsSL https://example.com/install.sh | sh", "pipe-to-shell"},
		{"wget -qO- https://example.com/x | sudo bash", "pipe-to-shell"},
		{"curl -s https://example.com/data.json | jq .", ""},
		{"mkfs.ext4 /dev/sdb1", "mkfs"},
		{"dd if=/dev/zero of=/dev/sda bs=1M", "dd-disk"},
		{"dd if=disk.img of=backup.img", ""},
		{":(){ :|:& };:", "fork-bomb"},
		{"chmod -R 777 /", "chmod-root"},
		{"chmod -R 755 ./public", ""},
		{"echo hello", ""},
	}
	for _, c := range cases {
		got := ""
		if r := check(c.command); r != nil {
			got = r.name
		}
		if got != c.rule {
			t.Errorf("%q: rule %q, want %q", c.command, got, c.rule)
		}
	}
}
