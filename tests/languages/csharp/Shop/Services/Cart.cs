using System;
using Shop.Models;

namespace Shop.Services
{
    public class Cart : BaseCart, ITotals
    {
        public void Add(string name)
        {
            var item = Item.Create(name);
            Console.WriteLine(name);
            Log(name);
            Validate(name);
            new Item(name);
            this.Log(name);
        }

        private void Log(string message)
        {
        }

        public int Total() => 0;
    }
}
