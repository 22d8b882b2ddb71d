// Package docstest keeps the README and docs/ true to the code: every
// reason Tether can set is explained, every sample they name is accepted by
// the API server, and every link between the pages leads somewhere. Its
// tests are its content; this file only names the package.
package docstest
