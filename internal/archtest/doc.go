// Package archtest holds no code: its test checks the import rule of
// docs/architecture.md, so that a dependency pointing up a layer fails CI
// instead of accumulating.
package archtest
