package main

import (
	"fmt"

	"example.com/shop/store"
)

func main() {
	s := store.NewStore()
	s.Add("x")
	fmt.Println(s)
	run()
	helper()
}

func helper() {}
