package client_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/daemon"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// Submit, preload and await against a daemon started in this process on a
// loopback port (daemon.New; cuzk daemon serves the same API). The job is
// the built-in test circuit with 2^10 rows over INSECURE test parameters
// made here.
func ExampleClient_Await() {
	dir, err := os.MkdirTemp("", "client-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := testkind.WriteParams(dir, 10); err != nil {
		log.Fatal(err)
	}
	cfg := config.Default()
	cfg.Daemon.Listen = "127.0.0.1:0" // loopback: no credentials needed
	cfg.SRS.ParamCache = dir
	cfg.Memory.TotalBudget = config.Budget{Size: 2 * config.GiB}
	d, err := daemon.New(cfg, daemon.Options{EnableTest: true})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	go d.Serve(ctx)
	defer func() {
		stop()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.Close(sctx)
	}()

	c, err := client.Dial(d.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	// Loading parameters ahead keeps the first job's latency down.
	already, _, err := c.Preload(ctx, testkind.CircuitID(10))
	fmt.Println("preloaded:", !already, err)

	req := client.TestRequest("client-example-1", 10, nil)
	req.Priority = cuzkv1.Priority_HIGH
	sub, err := c.Submit(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	// The job id outlives the call: a caller may await it (or cancel it)
	// from another connection, after a restart of its own.
	res, err := c.Await(ctx, sub.GetJobId(), 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sub.GetJobId(), res.GetStatus(), len(res.GetProof()), "bytes")
	// Submitting the same request id again attaches to the job.
	again, err := c.Submit(ctx, req)
	fmt.Println(again.GetJobId(), err)
	// Output:
	// preloaded: true <nil>
	// client-example-1 COMPLETED 192 bytes
	// client-example-1 <nil>
}
