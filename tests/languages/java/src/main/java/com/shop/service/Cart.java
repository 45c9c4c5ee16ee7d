package com.shop.service;

import com.shop.model.Base;
import com.shop.model.Item;
import java.util.ArrayList;
import java.util.List;

public class Cart extends Base implements Totals {
    private final List<Item> items = new ArrayList<>();

    public void put(String name) {
        Item item = Item.of(name);
        items.add(item);
        audit("put");
        new Item(name);
        log(name);
        Helper.format(name);
        total();
    }

    private void log(String message) {
        System.out.println(message);
    }

    public int total() {
        return items.size();
    }

    void start(Object task) {
        task.run();
    }

    class Line {
        int count() {
            return total();
        }
    }
}
