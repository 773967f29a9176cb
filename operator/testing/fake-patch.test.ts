// The fake API server's patch formats against the examples of their RFCs:
// JSON merge patch (RFC 7386, appendix A) and JSON patch (RFC 6902, appendix A).
import { describe, expect, it } from 'vitest';
import { jsonPatch, mergePatch, PatchError } from './fake-patch.ts';

describe('mergePatch (RFC 7386)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, result) => {
    const before = structuredClone(target);
    expect(mergePatch(target, patch)).toEqual(result);
    expect(target).toEqual(before);
  });
});

describe('jsonPatch (RFC 6902)', () => {
  it.each([
    ['adds an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['adds an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['appends with -', { foo: [1] }, [{ op: 'add', path: '/foo/-', value: 2 }], { foo: [1, 2] }],
    ['removes an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['removes an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['replaces a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [
      'moves a value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    [
      'moves an array element',
      { foo: ['all', 'grass', 'cows', 'eat'] },
      [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
      { foo: ['all', 'cows', 'eat', 'grass'] },
    ],
    ['copies a value', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
    ['passes a test', { baz: 'qux', foo: ['a', 2, 'c'] }, [{ op: 'test', path: '/foo/1', value: 2 }], { baz: 'qux', foo: ['a', 2, 'c'] }],
    ['adds a nested object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    [
      'escapes ~1 and ~0',
      { 'a/b': 1, 'm~n': 2 },
      [
        { op: 'replace', path: '/a~1b', value: 3 },
        { op: 'remove', path: '/m~0n' },
      ],
      { 'a/b': 3 },
    ],
    ['replaces the whole document', { a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }], { b: 2 }],
  ])('%s', (_name, target, operations, result) => {
    const before = structuredClone(target);
    expect(jsonPatch(target, operations)).toEqual(result);
    expect(target).toEqual(before);
  });

  it.each([
    ['a failed test', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]],
    ['a missing parent', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]],
    ['removing a missing member', { foo: 'bar' }, [{ op: 'remove', path: '/baz' }]],
    ['replacing a missing member', { foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 1 }]],
    ['an index past the end', { foo: [1] }, [{ op: 'add', path: '/foo/3', value: 2 }]],
    ['a non-numeric index', { foo: [1] }, [{ op: 'remove', path: '/foo/x' }]],
    ['an unknown operation', { foo: 1 }, [{ op: 'frobnicate', path: '/foo' }]],
  ])('rejects %s, leaving the target as it was', (_name, target, operations) => {
    const before = structuredClone(target);
    expect(() => jsonPatch(target, operations)).toThrow(PatchError);
    expect(target).toEqual(before);
  });

  it('marks a document that is not a list of operations as malformed', () => {
    expect(() => jsonPatch({}, { op: 'add' })).toThrow(expect.objectContaining({ malformed: true }) as Error);
    expect(() => jsonPatch({}, [{ op: 'add' }])).toThrow(expect.objectContaining({ malformed: true }) as Error);
    expect(() => jsonPatch({}, [{ op: 'test', path: '/a', value: 1 }])).toThrow(expect.objectContaining({ malformed: false }) as Error);
  });
});
