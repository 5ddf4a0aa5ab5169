package client

import (
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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

func TestIsDraining(t *testing.T) {
	refusal := status.Error(codes.Unavailable, cuzkv1.DrainingMessage)
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"the refusal", refusal, true},
		{"wrapped", fmt.Errorf("call: %w", refusal), true},
		{"named", (&Client{addr: "unix:///d.sock"}).drainErr(refusal), true},
		{"another Unavailable", status.Error(codes.Unavailable, "engine is shutting down: job aborted at the shutdown deadline"), false},
		{"the text with another code", status.Error(codes.Internal, cuzkv1.DrainingMessage), false},
		{"plain error", errors.New(cuzkv1.DrainingMessage), false},
	} {
		if got := IsDraining(tc.err); got != tc.want {
			t.Errorf("%s: IsDraining(%v) = %v", tc.name, tc.err, got)
		}
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial unix /run/curio/cuzk.sock: connect: no such file or directory"`), true},
		{fmt.Errorf("GetStatus: %w", status.Error(codes.Unavailable, "connection refused")), true},
		{refusal, false},
		{status.Error(codes.Unauthenticated, "no token"), false},
		{errors.New("connection refused"), false},
		{nil, false},
	} {
		if got := IsUnreachable(tc.err); got != tc.want {
			t.Errorf("IsUnreachable(%v) = %v", tc.err, got)
		}
	}
	// drainErr keeps other errors as they are, and the code of a refusal.
	other := status.Error(codes.Unavailable, "connection refused")
	if got := (&Client{}).drainErr(other); got != other {
		t.Errorf("drainErr(%v) = %v", other, got)
	}
	if err := (&Client{addr: "a:1"}).drainErr(refusal); status.Code(err) != codes.Unavailable || !errors.Is(err, ErrDraining) {
		t.Errorf("drainErr: %v (code %v)", err, status.Code(err))
	}
}
