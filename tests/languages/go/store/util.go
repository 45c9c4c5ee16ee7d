package store

import "strings"

func format(item string) string {
	return strings.ToUpper(item)
}

type Closer interface {
	Close() error
}

type fileA struct{}
type fileB struct{}

func (fileA) Close() error { return nil }
func (fileB) Close() error { return nil }

func closeAll(c Closer, s *Store) {
	c.Close()
	s.Add("closed")
}
