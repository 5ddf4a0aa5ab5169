// Package deps pins modules that packages under construction are about to
// import, so that go.mod stays stable while they are written. Remove an
// import here once a real package imports it.
package deps

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "golang.org/x/crypto/blake2b"
	_ "golang.org/x/sys/unix"
)
