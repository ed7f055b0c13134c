import Testing

@testable import AutoKVO

@Suite("InlineFirstArray: an ordered list whose first element needs no allocation")
struct InlineFirstArrayTests {
  private func list(_ elements: [Int]) -> InlineFirstArray<Int> {
    var list = InlineFirstArray<Int>()
    for element in elements { list.append(element) }
    return list
  }

  @Test("Elements keep their order through appends and removals, wherever they are removed")
  func orderAndRemoval() {
    var numbers = list([1, 2, 3, 4])
    #expect(Array(numbers) == [1, 2, 3, 4])
    #expect(numbers.count == 4)
    #expect(numbers.removeFirst(where: { $0 == 1 }) == 1)  // the inline one: the next moves in
    #expect(numbers.removeFirst(where: { $0 == 3 }) == 3)
    #expect(numbers.removeFirst(where: { $0 == 9 }) == nil)
    #expect(Array(numbers) == [2, 4])
    numbers.append(5)
    #expect(Array(numbers) == [2, 4, 5])
    _ = numbers.removeFirst(where: { _ in true })
    _ = numbers.removeFirst(where: { _ in true })
    _ = numbers.removeFirst(where: { _ in true })
    #expect(numbers.isEmpty && numbers.count == 0 && Array(numbers).isEmpty)
  }

  @Test(
    "Keeping elements matches filter, for every place the first left-out element can be",
    arguments: [[], [1], [2], [1, 3, 5], [2, 3, 5], [1, 2, 3], [1, 3, 4], [2, 4, 6, 7]])
  func keeping(elements: [Int]) {
    let numbers = list(elements)
    let odd = numbers.keeping { $0 % 2 == 1 }
    #expect(Array(odd) == elements.filter { $0 % 2 == 1 })
  }

  @Test("Elements are read and changed in place by position, the inline one and the others alike")
  func changingInPlace() {
    var numbers = list([1, 2, 3])
    #expect((0..<3).map { numbers[$0] } == [1, 2, 3])
    numbers[0] += 10
    numbers[2] *= 7
    #expect(Array(numbers) == [11, 2, 21])
    numbers.updateEach { $0 = -$0 }
    #expect(Array(numbers) == [-11, -2, -21])
    var empty = InlineFirstArray<Int>()
    empty.updateEach { _ in Issue.record("an empty list has no element to change") }
    #expect(empty.isEmpty)
  }

  @Test("Mapping and visiting go through every element in order")
  func mapping() {
    for elements in [[], [7], [7, 8, 9]] {
      let numbers = list(elements)
      #expect(Array(numbers.mapElements { $0 * 10 }) == elements.map { $0 * 10 })
      var visited: [Int] = []
      numbers.forEachElement { visited.append($0) }
      #expect(visited == elements)
    }
  }

  @Test("Replacing an element at each position returns the old one and changes only that one")
  func replacing() {
    for position in 0..<4 {
      var numbers = list([1, 2, 3, 4])
      let replaced = numbers.replace(at: position, with: 0)
      #expect(replaced == position + 1)
      var expected = [1, 2, 3, 4]
      expected[position] = 0
      #expect(Array(numbers) == expected)
      #expect(numbers.count == 4)
    }
  }
}
