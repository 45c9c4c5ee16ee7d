package com.shop.service

import com.shop.model.Item
import com.shop.model.itemOf

class Cart : Base() {
    private val items = mutableListOf<Item>()

    fun put(name: String) {
        val item = itemOf(name)
        items.add(item)
        log(name)
        audit()
        Item(name)
        Registry.register(this)
    }

    private fun log(message: String) {
        println(message)
    }
}
