package client

import cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"

// QueueName and QueuePriority expose the router's tables to the external
// test that pins them against the engine's.
func QueueName(k cuzkv1.ProofKind) string { return queueName(k) }

func QueuePriority(name string) cuzkv1.Priority { return queuePriority(name) }
