// What the blocks of *Services with lifecycles* use and do not declare; see
// scripts/article-blocks.py. Every block declares what it uses, but for the two ServiceGroup
// blocks, which are NotesServer's code (`<!-- test: … -->`): Examples/NotesServer compiles
// them, and ReadmeExampleTests keeps them the same as the article.
import Milieu
