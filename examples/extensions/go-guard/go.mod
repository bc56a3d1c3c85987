module zot.dev/examples/go-guard

go 1.19

require zot.dev/sdk/go/ext v0.0.0

replace zot.dev/sdk/go/ext => ../../../sdk/go
