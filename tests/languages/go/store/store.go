package store

// Store keeps items.
type Store struct {
	items []string
}

// NewStore makes an empty Store.
func NewStore() *Store {
	return &Store{}
}

func (s *Store) Add(item string) {
	s.items = append(s.items, item)
	s.log(item)
}

func (s *Store) log(item string) {
	format(item)
}
