package com.shop.service

open class Base {
    fun audit() {
    }
}

object Registry {
    fun register(cart: Cart) {
    }
}
