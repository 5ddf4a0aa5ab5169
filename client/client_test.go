package client

import (
	"errors"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
)

func TestResultError(t *testing.T) {
	for _, tc := range []struct {
		res  *cuzkv1.AwaitProofResponse
		want error
	}{
		{&cuzkv1.AwaitProofResponse{Status: cuzkv1.AwaitProofResponse_COMPLETED, Proof: make([]byte, 192)}, nil},
		{&cuzkv1.AwaitProofResponse{Status: cuzkv1.AwaitProofResponse_COMPLETED}, ErrNotFinal},
		{&cuzkv1.AwaitProofResponse{Status: cuzkv1.AwaitProofResponse_FAILED, ErrorMessage: "boom"}, ErrFailed},
		{&cuzkv1.AwaitProofResponse{Status: cuzkv1.AwaitProofResponse_CANCELLED}, ErrCancelled},
		{&cuzkv1.AwaitProofResponse{Status: cuzkv1.AwaitProofResponse_TIMEOUT}, ErrTimeout},
		{&cuzkv1.AwaitProofResponse{Status: cuzkv1.AwaitProofResponse_UNKNOWN}, ErrNotFinal},
	} {
		err := ResultError(tc.res)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%v: %v", tc.res.Status, err)
			}
			continue
		}
		var je *JobError
		if !errors.Is(err, tc.want) || !errors.As(err, &je) {
			t.Errorf("%v: got %v, want %v", tc.res.Status, err, tc.want)
		}
		for _, other := range []error{ErrFailed, ErrCancelled, ErrTimeout, ErrNotFinal} {
			if other != tc.want && errors.Is(err, other) {
				t.Errorf("%v also matches %v", tc.res.Status, other)
			}
		}
	}
	err := ResultError(&cuzkv1.AwaitProofResponse{JobId: "j", Status: cuzkv1.AwaitProofResponse_FAILED, ErrorMessage: "self-check failed"})
	if err.Error() != "cuzk job j: FAILED: self-check failed" {
		t.Errorf("message %q", err)
	}
}

func TestTarget(t *testing.T) {
	for in, want := range map[string]string{
		"unix:///run/curio/cuzk.sock": "unix:///run/curio/cuzk.sock",
		"127.0.0.1:9820":              "passthrough:///127.0.0.1:9820",
		"localhost:9820":              "passthrough:///localhost:9820",
		"dns:///cuzk.example:9820":    "dns:///cuzk.example:9820",
	} {
		if got := Target(in); got != want {
			t.Errorf("Target(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTestRequest(t *testing.T) {
	r := TestRequest("id", 12, []byte(`{}`))
	if r.GetProofKind() != 1000 || r.GetRegisteredProof() != 12 || r.GetSectorSize() != 4096 || r.GetRequestId() != "id" {
		t.Fatal(r)
	}
}
