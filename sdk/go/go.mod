module zot.dev/sdk/go/ext

go 1.19
