package main

import (
	"flag"

	"github.com/cuzk-dev/cuzk/config"
)

// securityFlags override the [daemon] keys that secure the listeners.
type securityFlags struct {
	tokenFile, certFile, keyFile, clientCA string
	insecureTCP                            bool
}

func addSecurityFlags(fs *flag.FlagSet) *securityFlags {
	s := &securityFlags{}
	fs.StringVar(&s.tokenFile, "token-file", "", "bearer token `file`, one token per line (overrides daemon.token_file; see docs/security.md)")
	fs.StringVar(&s.certFile, "tls-cert", "", "TLS certificate `file` (PEM) for TCP listeners (overrides daemon.tls_cert_file)")
	fs.StringVar(&s.keyFile, "tls-key", "", "TLS key `file` (PEM) (overrides daemon.tls_key_file)")
	fs.StringVar(&s.clientCA, "tls-client-ca", "", "require client certificates issued by this CA `file` (PEM) (overrides daemon.tls_client_ca_file)")
	fs.BoolVar(&s.insecureTCP, "insecure-tcp", false, "allow TCP listeners that authenticate nobody (sets daemon.insecure_tcp)")
	return s
}

func (s *securityFlags) apply(d *config.Daemon) {
	for _, f := range []struct {
		flag string
		key  *string
	}{{s.tokenFile, &d.TokenFile}, {s.certFile, &d.TLSCertFile}, {s.keyFile, &d.TLSKeyFile}, {s.clientCA, &d.TLSClientCAFile}} {
		if f.flag != "" {
			*f.key = f.flag
		}
	}
	if s.insecureTCP {
		d.InsecureTCP = true
	}
}
