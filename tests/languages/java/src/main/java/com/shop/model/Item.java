package com.shop.model;

/** An item of a cart. */
public class Item {
    private final String name;

    public Item(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    public static Item of(String name) {
        return new Item(name);
    }
}
