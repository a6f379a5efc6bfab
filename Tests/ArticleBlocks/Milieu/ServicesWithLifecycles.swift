// What the blocks of *Services with lifecycles* use and do not declare; see
// scripts/article-blocks.py. Every block declares what it uses, but for the adapter, which does
// not compile here.
import Milieu
