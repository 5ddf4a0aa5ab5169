package engine

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// TimingRecord is one stage line of the log (see the package doc).
type TimingRecord struct {
	Job       string
	Partition int // -1: the whole job
	Stage     string
	Start     time.Time
	Duration  time.Duration
	Batch     uint64
	Circuit   string
}

// End is when the stage ended.
func (r TimingRecord) End() time.Time { return r.Start.Add(r.Duration) }

// ParseTimingLine parses one log line written by slog's text or JSON
// handler. ok is false for lines that are not stage timings.
func ParseTimingLine(line []byte) (r TimingRecord, ok bool) {
	line = bytes.TrimSpace(line)
	fields := map[string]string{}
	if len(line) > 0 && line[0] == '{' {
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			return r, false
		}
		for k, v := range m {
			switch v := v.(type) {
			case string:
				fields[k] = v
			case float64:
				fields[k] = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
	} else if !parseLogfmt(string(line), fields) {
		return r, false
	}
	if fields["msg"] != "timing" || fields["job"] == "" || fields["stage"] == "" {
		return r, false
	}
	var err error
	r.Job, r.Stage, r.Circuit = fields["job"], fields["stage"], fields["circuit"]
	if r.Partition, err = strconv.Atoi(fields["partition"]); err != nil {
		return r, false
	}
	if r.Start, err = time.Parse(time.RFC3339Nano, fields["start"]); err != nil {
		return r, false
	}
	msv, err := strconv.ParseFloat(fields["duration_ms"], 64)
	if err != nil {
		return r, false
	}
	r.Duration = time.Duration(msv * float64(time.Millisecond))
	if b := fields["batch"]; b != "" {
		if r.Batch, err = strconv.ParseUint(b, 10, 64); err != nil {
			return r, false
		}
	}
	return r, true
}

// parseLogfmt splits key=value pairs as slog's text handler writes them
// (values with spaces or quotes are Go-quoted).
func parseLogfmt(s string, out map[string]string) bool {
	for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return false
		}
		key := s[:eq]
		s = s[eq+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return false
			}
			if val, err = strconv.Unquote(q); err != nil {
				return false
			}
			s = s[len(q):]
		} else {
			end := strings.IndexByte(s, ' ')
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
		}
		out[key] = val
	}
	return true
}
