namespace Shop.Models
{
    /// <summary>An item.</summary>
    public class Item
    {
        public Item(string name)
        {
            Name = name;
        }

        public string Name { get; }

        public static Item Create(string name) => new Item(name);
    }
}
