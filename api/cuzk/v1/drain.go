package cuzkv1

// DrainingMessage is the whole message of the UNAVAILABLE status a
// draining daemon (GetStatusResponse.draining) answers new SubmitProof and
// Prove calls with. It is part of the contract so that a client can tell
// "this daemon is going away, send the work elsewhere now" from other
// UNAVAILABLE answers (a broken connection, a job aborted at the shutdown
// deadline) without guessing at text.
const DrainingMessage = "daemon draining, retry on another"
