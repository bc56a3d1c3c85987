// go-hello: the smallest Go extension on sdk/go, one slash command.
//
//	/greet        Hello, world! (from Go, on MODEL)
//	/greet Ada    Hello, Ada! (from Go, on MODEL)
//
// The SDK answers hello_ack, registers the command, sends ready, runs the
// handler for each command_invoked and answers shutdown; main only says
// what the command does.
package main

import (
	"fmt"
	"os"
	"strings"

	"zot.dev/sdk/go/ext"
)

func greet(e *ext.Extension, args string) ext.Response {
	name := strings.Join(strings.Fields(args), " ")
	if name == "" {
		name = "world"
	}
	model := e.Host().Model
	if model == "" {
		model = "no model"
	}
	e.Notify("info", "said hello")
	return ext.Display(fmt.Sprintf("Hello, %s! (from Go, on %s)", name, model))
}

func main() {
	e := ext.New("go-hello", "1.0.0")
	e.Command("greet", "Say hello from Go: /greet [NAME]", func(args string) ext.Response {
		return greet(e, args)
	})
	if err := e.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-hello:", err)
		os.Exit(1)
	}
}
