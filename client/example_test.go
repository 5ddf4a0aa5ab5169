package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
)

// Dial a daemon and prove one request in a single call. The example needs a
// running daemon (cuzk daemon --listen unix:///run/cuzk.sock
// --enable-test-circuits), so it is compiled but not run.
func Example() {
	c, err := client.Dial("unix:///run/cuzk.sock")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// The built-in test circuit with 2^10 rows; a PoRep C2 request carries
	// ProofKind_POREP_SEAL_COMMIT, the sector size, the registered proof and
	// the C1 output in VanillaProof instead.
	res, err := c.Prove(ctx, client.TestRequest("example-1", 10, nil))
	var jobErr *client.JobError
	switch {
	case errors.Is(err, client.ErrFailed) && errors.As(err, &jobErr):
		log.Fatalf("job %s failed: %s", jobErr.JobID, jobErr.Message)
	case err != nil:
		log.Fatal(err) // RPC error, cancelled, timed out
	}
	fmt.Printf("job %s: %d proof bytes after %d ms of synthesis\n", res.GetJobId(), len(res.GetProof()), res.GetSynthesisMs())
}

// Submit and Await split Prove in two: the job id survives a dropped
// connection, so a caller can await it again (or cancel it) later.
func ExampleClient_Submit() {
	c, err := client.Dial("127.0.0.1:9820")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	req := client.TestRequest("example-2", 12, []byte(`{"partitions":2}`))
	req.Priority = cuzkv1.Priority_HIGH
	sub, err := c.Submit(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.Await(ctx, sub.GetJobId(), 0) // 0: until the job is final
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.GetStatus(), len(res.GetProof()))
}
