module zot.dev/sdk/go/bench/raw

go 1.19
