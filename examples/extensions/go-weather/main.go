// go-weather: a tool meant for codemode scripts, in a namespace.
//
//	forecast {"city": "Oslo", "days": 3}
//
// The tool declares an output schema and answers with a line of text for
// the model and structured_content for scripts. It lives in the
// "go_weather" namespace (with a description and instructions the model
// reads through describeNamespace) and has exposure "codemode": the model
// reaches it from a script,
//
//	const f = await tools.forecast({city: 'Oslo', days: 2})
//	return f.days[1].high
//
// The data is made up, and the same every time: a checksum of the city's
// name seeds it, so the example needs no network and tests can expect
// exact numbers. An unknown city is an error result that still carries
// structured content a script can read as data.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"strings"

	"zot.dev/sdk/go/ext"
)

const (
	defaultCity = "Berlin"
	maxDays     = 7
)

// Below freezing it snows; otherwise one of these.
var conditions = []string{"sunny", "cloudy", "rainy", "windy"}

type day struct {
	Day        int    `json:"day"`
	High       int    `json:"high"`
	Low        int    `json:"low"`
	Conditions string `json:"conditions"`
}

type forecast struct {
	City  string `json:"city"`
	Units string `json:"units"`
	Days  []day  `json:"days"`
}

var inputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "city": {"type": "string", "description": "The city (default Berlin)"},
    "days": {"type": "integer", "minimum": 1, "maximum": 7, "description": "How many days, today first (default 1)"}
  }
}`)

var outputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "city": {"type": "string"},
    "units": {"type": "string"},
    "days": {"type": "array", "items": {"type": "object", "properties": {
      "day": {"type": "integer"}, "high": {"type": "number"}, "low": {"type": "number"},
      "conditions": {"type": "string"}}}},
    "error": {"type": "string"}
  }
}`)

// predict is deterministic: day n of a city depends only on its name and n.
func predict(city string, days int) forecast {
	seed := crc32.ChecksumIEEE([]byte(strings.ToLower(city)))
	f := forecast{City: city, Units: "celsius", Days: make([]day, 0, days)}
	for n := 0; n < days; n++ {
		v := seed + uint32(n)*2654435761
		high := int(v%30) - 2
		sky := conditions[int(v>>8)%len(conditions)]
		if high <= 0 {
			sky = "snowy"
		}
		f.Days = append(f.Days, day{Day: n, High: high, Low: high - int(v/30%8) - 2, Conditions: sky})
	}
	return f
}

func structured(value any, text string, isError bool) ext.ToolResult {
	data, err := json.Marshal(value)
	if err != nil {
		return ext.TextErrorResult("forecast: " + err.Error())
	}
	return ext.ToolResult{Content: []ext.ToolContent{ext.Text(text)}, StructuredContent: data, IsError: isError}
}

func handle(args json.RawMessage) ext.ToolResult {
	in := struct {
		City *string `json:"city"`
		Days *int    `json:"days"`
	}{}
	if err := json.Unmarshal(args, &in); err != nil {
		return structured(map[string]string{"error": "bad arguments"}, "forecast: "+err.Error(), true)
	}
	city, days := defaultCity, 1
	if in.City != nil {
		city = strings.Join(strings.Fields(*in.City), " ")
	}
	if in.Days != nil {
		days = *in.Days
	}
	if city == "" {
		return structured(map[string]string{"error": "unknown city", "city": city}, "No such city", true)
	}
	if days < 1 || days > maxDays {
		return structured(map[string]any{"error": "days out of range", "days": days},
			fmt.Sprintf("days must be 1 to %d, not %d", maxDays, days), true)
	}
	f := predict(city, days)
	parts := make([]string, len(f.Days))
	for i, d := range f.Days {
		parts[i] = fmt.Sprintf("day %d: %s, %d/%d C", d.Day, d.Conditions, d.High, d.Low)
	}
	return structured(f, city+": "+strings.Join(parts, "; "), false)
}

func main() {
	e := ext.New("go-weather", "1.0.0")
	e.ToolWithOptions("forecast", "A made-up weather forecast for a city, for scripts", inputSchema,
		ext.ToolOptions{
			OutputSchema:          outputSchema,
			Namespace:             "go_weather",
			NamespaceDescription:  "Made-up weather forecasts (deterministic, offline)",
			NamespaceInstructions: "Temperatures are in Celsius; day 0 is today",
			Exposure:              "codemode",
		}, func(_ context.Context, args json.RawMessage) ext.ToolResult { return handle(args) })
	if err := e.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-weather:", err)
		os.Exit(1)
	}
}
