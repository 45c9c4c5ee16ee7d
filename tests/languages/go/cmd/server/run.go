package main

import st "example.com/shop/store"

func run() {
	helper()
	st.NewStore()
}
