package daemon_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/daemon"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
)

// Start a daemon in-process, prove through its gRPC socket as Curio would,
// and stop it. The proof is of the built-in test circuit with 2^10 rows,
// over INSECURE test parameters generated here; a Filecoin daemon takes
// the official parameters from [srs] param_cache instead.
func Example() {
	dir, err := os.MkdirTemp("", "cuzk-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := testkind.WriteParams(dir, 10); err != nil {
		log.Fatal(err)
	}

	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + filepath.Join(dir, "cuzk.sock")
	cfg.SRS.ParamCache = dir
	cfg.Memory.TotalBudget = config.Budget{Size: 2 * config.GiB}
	if err := cfg.Validate(); err != nil {
		log.Fatal(err)
	}
	d, err := daemon.New(cfg, daemon.Options{EnableTest: true})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx) }()

	c, err := client.Dial(cfg.Daemon.Listen)
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.Prove(ctx, client.TestRequest("example-1", 10, nil))
	c.Close()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.GetStatus(), len(res.GetProof()), "bytes")

	// The proof verifies against the test circuit's verifying key.
	vk, err := groth16.ReadVerifyingKeyFile(filepath.Join(dir, testkind.FileBase(10)+".vk"))
	if err != nil {
		log.Fatal(err)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		log.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs(res.GetProof())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(groth16.Verify(pvk, &proofs[0], testkind.PublicInputs(10)))

	// Stop serving, then shut down: jobs get until the deadline, then
	// parameters and devices are released.
	stop()
	if err := <-served; err != nil {
		log.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fmt.Println("closed:", d.Close(sctx))
	// Output:
	// COMPLETED 192 bytes
	// true <nil>
	// closed: <nil>
}
